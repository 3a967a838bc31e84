// Debian's Chromium for the headless-browser test of report.html (playwright-core drives it; playwright's own
// browser download needs the network, Debian's package needs only the registry). Idempotent: nothing to do
// when /usr/bin/chromium exists. Never fatal: without root or apt-get we say what to run and go on, and the
// browser test reports the same message instead of passing silently.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

export const name = 'chromium (headless report check)';
export const CHROMIUM = '/usr/bin/chromium';
/** Only the tests need it: `npm start` (bootstrap without --tests) installs nothing system-wide. */
export const testsOnly = true;

export async function run(ctx) {
  if (existsSync(CHROMIUM)) {
    ctx.log(`chromium present at ${CHROMIUM}`);
    return;
  }
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = existsSync('/usr/bin/apt-get');
  if (!isRoot || !hasApt) {
    ctx.log(
      `chromium missing at ${CHROMIUM} and ${!isRoot ? 'we are not root' : 'apt-get is not available'}: ` +
        'install it with `sudo apt-get update && sudo apt-get install -y chromium` to run the report browser test',
    );
    return;
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    ctx.log('installing chromium from Debian packages (apt-get update, then apt-get install -y chromium)');
    execFileSync('apt-get', ['update', '-q'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'chromium'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env,
    });
  } catch (err) {
    ctx.log(`chromium install failed (${err.message}); the report browser test will say so`);
    return;
  }
  ctx.log(existsSync(CHROMIUM) ? `chromium installed at ${CHROMIUM}` : `apt-get finished but ${CHROMIUM} is still missing`);
}

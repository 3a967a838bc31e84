/**
 * The repository an evaluation is about, as a reader names it, from what the index recorded (`git config
 * remote.origin.url`, else the checkout's path): `owner/name` for a hosted URL (https, ssh, scp-like), the
 * folder's name for a local path, `.git` dropped. The report's title showed the whole remote path of the
 * checkout before (issue 38), which names where it was cloned from, not what was evaluated.
 */
export function repositoryName(identity: string): string {
  const trimmed = identity.trim().replace(/\/+$/, '').replace(/\.git$/, '');
  const hosted = /^(?:[a-z][a-z0-9+.-]*:\/\/[^/]+|[^@/\s]+@[^:/\s]+:)\/?(.+)$/i.exec(trimmed);
  if (hosted) return hosted[1].split('/').slice(-2).join('/');
  return trimmed.split(/[\\/]/).filter(Boolean).at(-1) ?? trimmed;
}

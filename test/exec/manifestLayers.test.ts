import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manifestLayers } from '../../activities/exec/types.ts';

test('manifest layers keep what was in force and why not, never per-process values', () => {
  assert.deepEqual(
    manifestLayers({ view: false, view_error: 'EPERM: unshare(CLONE_NEWNS)', netns: true, uid: 268467594, caps_kept: [], landlock: true, landlock_abi: 7, seccomp: true, audit_hook: true, private_tmp: false }),
    { audit_hook: true, landlock: true, landlock_abi: 7, netns: true, private_tmp: false, seccomp: true, view: false, view_error: 'EPERM: unshare(CLONE_NEWNS)' },
  );
  assert.deepEqual(Object.keys(manifestLayers({ seccomp: true, audit_hook: true })), ['audit_hook', 'seccomp'], 'sorted, so the manifest bytes do not depend on report order');
});

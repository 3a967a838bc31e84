import { test } from 'node:test';
import assert from 'node:assert/strict';
import { repositoryName } from '../../core/repo/repoName.ts';

test('the repository report is titled with the repository, not the path it was cloned from', () => {
  assert.equal(repositoryName('https://github.com/psf/requests.git'), 'psf/requests');
  assert.equal(repositoryName('git@github.com:pallets/flask.git'), 'pallets/flask');
  assert.equal(repositoryName('ssh://git@gitlab.example.org/group/sub/tool'), 'sub/tool');
  assert.equal(repositoryName('/work/remotes/execretrieval.git'), 'execretrieval');
  assert.equal(repositoryName('/home/me/src/my-service/'), 'my-service');
});

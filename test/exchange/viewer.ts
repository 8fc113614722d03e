import type { TestApp } from '../helpers';

/** A user who may view `repo` (repository-viewers) and one in no group; their session tokens. */
export async function viewerAndNobody(t: TestApp, repo: number, prefix: string): Promise<{ viewer: string; nobody: string }> {
  const admin = { 'X-ArchivesSpace-Session': await t.adminToken() };
  const groups = await t.http.get(`/repositories/${repo}/groups`).query({ group_code: 'repository-viewers' }).set(admin);
  await t.http.post('/users').query({ password: 'pw-v', 'groups[]': [groups.body[0].uri] }).set(admin).send({ username: `${prefix}viewer`, name: 'V' }).expect(200);
  await t.http.post('/users').query({ password: 'pw-n' }).send({ username: `${prefix}nobody`, name: 'N' }).expect(200);
  const viewer = (await t.http.post(`/users/${prefix}viewer/login`).query({ password: 'pw-v' })).body.session as string;
  const nobody = (await t.http.post(`/users/${prefix}nobody/login`).query({ password: 'pw-n' })).body.session as string;
  return { viewer, nobody };
}

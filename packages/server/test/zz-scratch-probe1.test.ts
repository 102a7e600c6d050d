import { beforeAll, expect, it } from 'vitest';
import { client, createUser, describeBothDatabases, loggedIn, login } from './harness.ts';
import { activate, createTans, insertProduct, machine, type Client } from './licensing-test-data.ts';

describeBothDatabases('scratch probe 1', (t) => {
  let admin: Client;
  let productId: number;
  beforeAll(async () => {
    admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
    productId = (await insertProduct(t.app)).id;
  });

  it('A: move a license to a closed account', async () => {
    const owner = await loggedIn(t.app, 'USER');
    const api = client(t.app, owner.cookie);
    const victim = await createUser(t.app);
    const close = await admin.delete(`/api/users/${victim.id}`);
    console.log(t.kind, 'close', close.statusCode, close.body);
    const [tan] = await createTans(admin, { productId });
    const lic = (await activate(api, tan.code)).json();
    const moved = await api.post(`/api/licenses/${lic.id}/move`, { body: { email: `closed-${victim.id}@closed.invalid` } });
    console.log(t.kind, 'A move to closed', moved.statusCode, moved.body.slice(0, 300));
  });

  it('B: register closed-<next id>@closed.invalid, then close that id', async () => {
    const probe = await createUser(t.app);
    const nextId = probe.id + 1;
    const reg = await client(t.app).post('/api/users/register', { body: { email: `closed-${nextId + 1}@closed.invalid`, password: 'secret12', password_confirm: 'secret12', optInEmail: false } });
    console.log(t.kind, 'B register', reg.statusCode, reg.body);
    const target = await createUser(t.app);
    console.log(t.kind, 'B ids', nextId, target.id);
    const close = await admin.delete(`/api/users/${target.id}`);
    console.log(t.kind, 'B close', close.statusCode, close.body);
    // also admin create
    const create = await admin.post('/api/users', { body: { email: `closed-${target.id + 5}@closed.invalid`, firstName: 'a', lastName: 'b' } });
    console.log(t.kind, 'B admin create', create.statusCode, create.body.slice(0, 200));
  });

  it('C: license valid until 9999-12-31, download file', async () => {
    const owner = await loggedIn(t.app, 'USER');
    const api = client(t.app, owner.cookie);
    const [tan] = await createTans(admin, { productId });
    const lic = (await activate(api, tan.code)).json();
    const put = await admin.put(`/api/licenses/${lic.id}`, { body: { validUntil: '9999-12-31' } });
    console.log(t.kind, 'C put', put.statusCode, put.body.slice(0, 200));
    const file = await api.get(`/api/licenses/${lic.id}/file?format=json`);
    console.log(t.kind, 'C file', file.statusCode, file.body.slice(0, 200));
    const put2 = await admin.put(`/api/licenses/${lic.id}`, { body: { validUntil: '0000-01-01' } });
    console.log(t.kind, 'C put 0000', put2.statusCode, put2.body.slice(0, 200));
    const list = await api.get(`/api/licenses?sort=validUntil`);
    console.log(t.kind, 'C list', list.statusCode, list.body.slice(0, 100));
  });
});

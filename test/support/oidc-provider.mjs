// A real OpenID provider (oidc-provider) on loopback, in a process of its own (it is ESM-only).
// Env: OP_CLIENT_ID, OP_CLIENT_SECRET, OP_REDIRECT_URI, OP_ACCOUNTS (JSON {id: {email, email_verified, name, department}}).
// Its interaction signs in the account named by the authorization request's `login_hint` and
// grants what was asked, without a form, so a test can drive the browser's side with plain requests;
// without a hint (a real browser that clicked "Sign in with …") it shows a form asking for the account.
import http from 'node:http';
import Provider from 'oidc-provider';

const accounts = JSON.parse(process.env.OP_ACCOUNTS ?? '{}');
const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.OP_CLIENT_ID,
      client_secret: process.env.OP_CLIENT_SECRET,
      redirect_uris: [process.env.OP_REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'department'] },
  conformIdTokenClaims: false, // scope claims in the ID token itself
  cookies: { keys: ['test-cookie-key-test-cookie-key'] },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: false } },
  findAccount: (_ctx, id) => (accounts[id] ? { accountId: id, claims: () => ({ sub: id, ...accounts[id] }) } : undefined),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
});
provider.proxy = false;
// refusals are printed, so a failing test shows why the provider said no
for (const event of ['grant.error', 'userinfo.error', 'authorization.error', 'server_error'])
  provider.on(event, (_ctx, err) =>
    process.stderr.write(`oidc provider ${event}: ${err.message} ${err.error_description ?? ''} ${err.error_detail ?? ''}\n`),
  );

const callback = provider.callback();
server.on('request', async (req, res) => {
  if (!req.url.startsWith('/interaction/')) return callback(req, res);
  try {
    const details = await provider.interactionDetails(req, res);
    let accountId = String(details.params.login_hint ?? '');
    if (!accountId && req.method === 'GET') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(
        '<!doctype html><title>Test identity provider</title><form method="post">' +
          '<label>Account <input name="login" autocomplete="username"></label> <button>Continue</button></form>',
      );
      return;
    }
    if (!accountId) {
      let body = '';
      for await (const chunk of req) body += chunk;
      accountId = new URLSearchParams(body).get('login') ?? '';
    }
    if (!accounts[accountId]) {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'unknown test account' });
      return;
    }
    const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  } catch (e) {
    res.statusCode = 500;
    res.end(String(e));
  }
});

process.stdout.write(`oidc provider ready ${issuer}\n`);

// A real OpenID provider (the npm package oidc-provider) on loopback, for
// tests/browser/oidc.test.mjs. Run as its own process, so that its clock can
// be shifted without touching the test's:
//   node lib/oidc-provider.mjs        prints "@issuer http://127.0.0.1:PORT"
//   stdin "client BASE"              registers the static client whose
//                                    redirect_uri is BASE/auth/callback;
//                                    prints "@ok"
//   stdin "late"                     from now on ID tokens live 1 s and are
//                                    issued 300 s in the past (the clock of
//                                    this process only); prints "@ok"
//   stdin "on time"                  back to the real clock; prints "@ok"
//   stdin "rotate"                   a new provider with a new signing key
//                                    (same issuer and client); prints "@ok"
// (oidc-provider's own notices go to stdout too, without the "@").
// Accounts: the dev interactions take any login; alice is in the group dev,
// anyone else in none. The client secret is CLIENT_SECRET below.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import readline from 'node:readline';
import Provider from 'oidc-provider';

export const CLIENT_ID = 'panecast';
export const CLIENT_SECRET = 'oidc-test-secret-0123456789';
const GROUPS = { alice: ['dev'] };

const realNow = Date.now;
let late = false;
Date.now = () => realNow() - (late ? 300_000 : 0);

let handler = (req, res) => { res.statusCode = 503; res.end('no client yet'); };
const server = http.createServer((req, res) => handler(req, res));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const issuer = `http://127.0.0.1:${server.address().port}`;

let keys = 0;
/** A fresh RSA signing key, as a private JWK with a kid of its own. */
function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  keys += 1;
  return { ...privateKey.export({ format: 'jwk' }), kid: `key-${keys}`, alg: 'RS256', use: 'sig' };
}

function provider(base) {
  const oidc = new Provider(issuer, {
    jwks: { keys: [signingKey()] },
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [`${base}/auth/callback`],
      post_logout_redirect_uris: [`${base}/`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    claims: { openid: ['sub'], profile: ['preferred_username'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'groups'],
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    ttl: { IdToken: () => (late ? 1 : 600), AccessToken: 600, AuthorizationCode: 60, Interaction: 600, Session: 600, Grant: 600 },
    cookies: { keys: ['oidc-test-cookie-key'] },
    async findAccount(ctx, id) {
      return {
        accountId: id,
        async claims() { return { sub: id, preferred_username: id, groups: GROUPS[id] || [] }; },
      };
    },
  });
  oidc.on('server_error', (ctx, err) => console.error('provider error:', err));
  return oidc.callback();
}

let client;
console.log(`@issuer ${issuer}`);
for await (const line of readline.createInterface({ input: process.stdin })) {
  const [command, ...rest] = line.trim().split(' ');
  if (command === 'client') {
    [client] = rest;
    handler = provider(client);
  } else if (command === 'rotate') handler = provider(client);
  else if (command === 'late') late = true;
  else if (line.trim() === 'on time') late = false;
  else { console.log(`@unknown command ${line}`); continue; }
  console.log('@ok');
}
server.close();

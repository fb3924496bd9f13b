// StepCompass dashboard: the access token (the dashboard's --auth-token or --auth-token-file).
//
// A dashboard started with a token answers its API, its event stream and its photos only with that token; the page
// itself (these files) is open. The page asks for the token once, in the form at the top (#auth), keeps it in
// localStorage and puts it in the cookie stepcompass-token-PORT (SameSite=Strict), which the browser sends by itself
// with every request to the dashboard: fetch, the EventSource (which cannot set headers), the photos and the
// downloads. (Scripts send Authorization: Bearer TOKEN instead.) A 401 from the dashboard shows the form; a token
// that the dashboard accepts is kept and the page loads again with it. Without a token on the dashboard no request
// is refused, so the form never shows and the page is as it always was.
//
// Loaded before map.js and app.js, so the cookie is in place before their first request; they call
// dashboardAuth.unauthorized() on a 401 and dashboardAuth.check() when the event stream is refused.
'use strict';

const AUTH = {
  KEY: 'stepcompass.authToken',
  // The port in the name keeps two dashboards on one host apart: cookies ignore the port.
  // No port in the address (the scheme's default, 80 or 443): `default`, as the server reads a Host without one.
  COOKIE: `stepcompass-token-${location.port || 'default'}`,
  YEAR_S: 365 * 24 * 3600,
};

const dashboardAuth = {
  asking: false,

  // A request was refused for want of the token (401): the form, once, however many requests were refused.
  unauthorized() {
    if (this.asking) return;
    this.asking = true;
    const saved = readToken();
    // A kept token the dashboard refuses is forgotten: the next visit asks again instead of sending it.
    forgetToken();
    authMessage(saved
      ? 'The saved access token was not accepted (the dashboard may have been started with another one). Enter the current token.'
      : 'This dashboard needs its access token. Enter it once; this browser keeps it.');
    const connection = document.getElementById('connection');
    if (connection) connection.textContent = 'Access token needed';
    document.getElementById('auth').toggleAttribute('hidden', false);
    document.getElementById('auth-token').focus();
  },

  // The event stream was refused: asks the dashboard whether the token is why. Resolves to true when it is (the
  // form is then shown and the stream should wait for the token), false otherwise (reconnect as before).
  async check() {
    if (this.asking) return true;
    try {
      const response = await fetch('/api/auth', { cache: 'no-store' });
      if (response.status !== 401) return false;
    } catch {
      return false;
    }
    this.unauthorized();
    return true;
  },
};

// ---- The kept token --------------------------------------------------------------------------------------

// localStorage throws in some private modes: the token then lives in the cookie for this visit only.
function readToken() {
  try {
    return localStorage.getItem(AUTH.KEY) || '';
  } catch {
    return '';
  }
}

function keepToken(token) {
  try {
    localStorage.setItem(AUTH.KEY, token);
  } catch {
    // Not kept in this browser; the cookie below still carries it for this visit.
  }
  setCookie(token, AUTH.YEAR_S);
}

function forgetToken() {
  try {
    localStorage.removeItem(AUTH.KEY);
  } catch {
    // Nothing kept.
  }
  setCookie('', 0);
}

function setCookie(token, maxAge) {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${AUTH.COOKIE}=${encodeURIComponent(token)}; Path=/; Max-Age=${maxAge}; SameSite=Strict${secure}`;
}

// ---- The form --------------------------------------------------------------------------------------------

function authMessage(text) {
  const message = document.getElementById('auth-message');
  message.textContent = text;
  message.toggleAttribute('hidden', !text);
}

// Tries the token on GET /api/auth (as a bearer token: the cookie is set only once it is right), then keeps it and
// loads the page again, so every panel, the map and the stream start over with it.
async function submitToken(event) {
  event.preventDefault();
  const input = document.getElementById('auth-token');
  const button = document.getElementById('auth-submit');
  const token = input.value.trim();
  if (!token) {
    authMessage('Enter the access token.');
    return;
  }
  button.disabled = true;
  authMessage('Checking the token…');
  try {
    const response = await fetch('/api/auth', { cache: 'no-store', headers: { Authorization: `Bearer ${token}` } });
    if (response.ok) {
      keepToken(token);
      authMessage('Token accepted; loading…');
      location.reload();
      return;
    }
    authMessage(response.status === 401
      ? 'That token was not accepted: it is not the one this dashboard was started with. Check it and try again.'
      : `The dashboard answered ${response.status} ${response.statusText}; try again.`);
  } catch (error) {
    authMessage(`Could not reach the dashboard: ${error.message}`);
  }
  button.disabled = false;
  input.select();
}

const savedToken = readToken();
if (savedToken) setCookie(savedToken, AUTH.YEAR_S);
document.getElementById('auth-form').addEventListener('submit', submitToken);

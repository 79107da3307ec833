/**
 * The sign-in page: what a page a person opens (the web chat, the home-screen app's start)
 * shows without a valid token or cookie, instead of a bare 401. The token is pasted into
 * it; sign-in.js sends it as `?token=`, which the router trades for the cookie. It says where
 * the token is found, and that the web chat is the owner's: other people talk to satchel on
 * their own channel. `wrong`: a token was given and is not the right one.
 */
export function signInPage(wrong: boolean): string {
  const problem = wrong
    ? '<p id="problem" role="alert">That is not the right token. Paste it again.</p>'
    : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>Sign in · satchel</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="/base.css" />
    <link rel="stylesheet" href="/sign-in.css" />
    <script type="module" src="/sign-in.js"></script>
  </head>
  <body>
    <main class="sign-in">
      <h1>Sign in to satchel</h1>
      <p>This web chat is the owner's: whoever holds its token talks to satchel as its owner.
        Other people talk to satchel on their own channel (such as Telegram), never with this token.</p>
      ${problem}
      <form id="sign-in">
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      <h2>Where is the token?</h2>
      <ul>
        <li>In the address satchel printed when it started: the line
          <code>satchel web chat: http://…/chat?token=…</code> in its terminal (opening that
          address signs you in too).</li>
        <li>As <code>DASHBOARD_TOKEN</code> in satchel's <code>.env</code>, when it is set there.</li>
        <li>Otherwise in the file <code>dashboard-token</code> in satchel's home folder
          (<code>SATCHEL_HOME</code>, <code>./data</code> by default).</li>
      </ul>
      <p>Once signed in, this browser stays signed in for 30 days after its last visit.</p>
    </main>
  </body>
</html>
`;
}

// The sign-in page: the pasted token goes to this same address as `?token=`, which the
// server trades for its cookie and a redirect back here without it (the form itself cannot
// submit: the page's CSP allows no form action).
const form = document.getElementById('sign-in');
const input = document.getElementById('token');
form.addEventListener('submit', (event) => {
  event.preventDefault();
  const token = input.value.trim();
  if (token === '') return;
  const url = new URL(location.href);
  url.searchParams.set('token', token);
  location.assign(url.href);
});
input.focus();

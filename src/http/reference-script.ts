/**
 * The REST reference's one script, served beside it (`<base>/docs/try-<hash>.js`) under a CSP of
 * `'self'`: it shows the "Try it" forms of GET operations and sends them with the Authorization header
 * the reader typed. The header stays in the page's memory: never in storage, a cookie or the URL.
 */
import { asset } from '../internal/look/asset.js';

const JS = `
"use strict";
(function () {
  function send(form, output) {
    var auth = document.getElementById('try-authorization');
    var path = form.getAttribute('data-path');
    var query = new URLSearchParams();
    var missing = [];
    form.querySelectorAll('input[data-in]').forEach(function (input) {
      var value = input.value.trim();
      if (input.getAttribute('data-in') === 'path') {
        if (!value) missing.push(input.name);
        path = path.split('{' + input.name + '}').join(encodeURIComponent(value));
      } else if (value) query.append(input.name, value);
    });
    if (missing.length) { output.textContent = 'Fill in ' + missing.join(', ') + '.'; return; }
    var url = path + (query.toString() ? '?' + query : '');
    var headers = { accept: 'application/json' };
    if (auth && auth.value.trim()) headers.authorization = auth.value.trim();
    output.textContent = 'GET ' + url + ' …';
    fetch(url, { headers: headers, credentials: 'omit', cache: 'no-store' }).then(function (response) {
      return response.text().then(function (text) {
        var body = text;
        try { body = JSON.stringify(JSON.parse(text), null, 2); } catch (e) {}
        output.textContent = 'GET ' + url + '\\n' + response.status + ' ' + response.statusText + '\\n\\n' + body;
      });
    }, function (error) { output.textContent = 'GET ' + url + ' failed: ' + error; });
  }
  function openTarget() {
    var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.tagName === 'DETAILS') target.open = true;
  }
  document.addEventListener('DOMContentLoaded', function () {
    var box = document.getElementById('try-auth-box');
    if (box) box.hidden = false;
    // On a phone the contents come first: folded, so the reference is one tap away.
    var contents = document.getElementById('contents');
    if (contents && window.matchMedia('(max-width: 900px)').matches) contents.open = false;
    document.querySelectorAll('details.try').forEach(function (fold) {
      fold.hidden = false;
      var form = fold.querySelector('form');
      var output = form.querySelector('output pre');
      form.addEventListener('submit', function (event) { event.preventDefault(); send(form, output); });
    });
    openTarget();
  });
  window.addEventListener('hashchange', openTarget);
})();
`;

/** The reference page's script, content-hashed. */
export const REFERENCE_SCRIPT = asset('try', 'js', 'text/javascript; charset=utf-8', JS);

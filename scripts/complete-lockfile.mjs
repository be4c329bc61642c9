// Completes package-lock.json with the platform-specific optional packages (other operating systems and
// CPUs) that this machine's registry mirror does not serve, so npm could not record them. Without them
// `npm ci` refuses the lock file as "out of sync". Each added entry carries the os/cpu read from its
// name, so npm skips it on every other platform and never tries to download it.
//
//   node scripts/complete-lockfile.mjs     (after any `npm install` that changes the lock file)
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
const OS = [
  'android',
  'darwin',
  'freebsd',
  'linux',
  'netbsd',
  'openbsd',
  'sunos',
  'win32',
  'aix',
  'openharmony',
  'cygwin',
];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

const OS_ALIASES = { win: 'win32', windows: 'win32', macos: 'darwin', mac: 'darwin' };
const CPU_ALIASES = { x86_64: 'x64', aarch64: 'arm64', armv7: 'arm', gnueabihf: 'arm', 64: 'x64' };

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p) || p in OS_ALIASES);
  // `64` alone is x64 in @cloudflare/workerd-linux-64's naming.
  const cpu = parts.find((p) => CPU.includes(p) || p in CPU_ALIASES);
  const entry = {};
  if (os) entry.os = [OS_ALIASES[os] ?? os];
  if (cpu) entry.cpu = [CPU_ALIASES[cpu] ?? cpu];
  if (parts.includes('musl')) entry.libc = ['musl'];
  else if (parts.includes('gnu') || parts.includes('glibc')) entry.libc = ['glibc'];
  return entry;
}

/** Where Node looks for `name` from the package at `location`, nearest first, the top-level one last. */
function lookups(location, name) {
  const paths = [];
  for (let at = location; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/node_modules/')))) {
    paths.push(`${at ? `${at}/` : ''}node_modules/${name}`);
    if (!at) return paths;
  }
}

/**
 * Where npm puts `name@version` for the package at `location`: nowhere if the one it finds is that
 * version; at the top if none is found; else just inside the one found, whose version differs (a
 * second workerd under an alias, the oldest the docs support, wants builds of its own version).
 */
function placeOf(location, name, version) {
  const paths = lookups(location, name);
  const found = paths.findIndex((path) => packages[path]);
  if (found === -1) return paths.at(-1);
  if (packages[paths[found]].version === version || found === 0) return undefined;
  return paths[found - 1];
}

let added = 0;
for (const [location, pkg] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const place = placeOf(location, name, version);
    if (!place) continue;
    const platform = platformOf(name);
    if (!platform.os && !platform.cpu) continue; // not a platform build: npm must resolve it for real
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) {
      console.warn(`skipped ${name}@${version}: not an exact version`);
      continue;
    }
    packages[place] = {
      version,
      ...(pkg.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} platform-specific optional package entries`);

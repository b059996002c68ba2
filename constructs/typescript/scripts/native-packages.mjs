// Packs the check's native builds (native/<platform>-<arch>, written by
// build-kernel.mjs) as one npm package per platform,
// @linn-cloud/erasure-check-<platform>-<arch> (scoped: no one else can publish the name), into the directory given (the
// release's dist/js), and repacks the package's npm tarball there listing
// them as optional dependencies: each has its os and cpu, so that npm
// installs the one for the team's platform and no other (as esbuild and swc
// ship theirs); lib/check.ts runs it, and the WebAssembly module where none
// is installed. They are added to the packed tarball, not to package.json:
// npm ci cannot lock dependencies that are only published with the release.
// Usage: node native-packages.mjs OUTDIR
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = resolve(process.argv[2] ?? join(pkg, 'dist'))
const main = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'))
const stage = join(tmpdir(), `erasure-channel-check-${process.pid}`)
mkdirSync(out, { recursive: true })
const platforms = readdirSync(join(pkg, 'native')).sort()
for (const platform of platforms) {
  const [os, cpu] = platform.split('-')
  const exe = os === 'win32' ? 'erasure-check.exe' : 'erasure-check'
  const name = `@linn-cloud/erasure-check-${platform}`
  const dir = join(stage, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  copyFileSync(join(pkg, 'native', platform, exe), join(dir, exe))
  chmodSync(join(dir, exe), 0o755)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name,
    version: main.version,
    description: `The erasure channel's app-wide check (erasure-check) built natively for ${platform}; erasure-channel-constructs runs it when installed.`,
    license: main.license,
    repository: main.repository,
    os: [os],
    cpu: [cpu],
    files: [exe],
    preferUnplugged: true,
    publishConfig: { access: 'public' },
  }, null, 2) + '\n')
  writeFileSync(join(dir, 'README.md'), `# ${name}\n\nThe erasure channel's \`erasure-check\` for ${platform}. Install \`erasure-channel-constructs\`, which depends on it for this platform alone.\n`)
  execFileSync('npm', ['pack', '--quiet', '--pack-destination', out], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
}

// The package's own tarball (jsii-pacmak's npm pack), unpacked and packed
// again with the optional dependencies, scripts off (its prepack builds).
const tarball = join(out, `${main.name}@${main.version}.jsii.tgz`)
const unpacked = join(stage, 'main')
mkdirSync(unpacked, { recursive: true })
execFileSync('tar', ['-xzf', tarball, '-C', unpacked])
const manifestPath = join(unpacked, 'package', 'package.json')
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
if (manifest.optionalDependencies) throw new Error(`${tarball} already has optional dependencies`)
manifest.optionalDependencies = Object.fromEntries(platforms.map((p) => [`@linn-cloud/erasure-check-${p}`, main.version]))
writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n')
const repacked = execFileSync('npm', ['pack', '--quiet', '--ignore-scripts', '--pack-destination', unpacked], { cwd: join(unpacked, 'package') }).toString().trim().split('\n').pop()
copyFileSync(join(unpacked, repacked), tarball)
rmSync(stage, { recursive: true, force: true })

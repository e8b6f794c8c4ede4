// Bundles the UI into <outdir>: app.js (src/main.js and its imports),
// app.css and index.html (a template nsqadmin fills in). No CDN: everything
// the page loads comes from nsqadmin itself.
import {build} from 'esbuild'
import {copyFileSync, mkdirSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const outdir = resolve(process.argv[2] || join(here, 'dist'))
mkdirSync(outdir, {recursive: true})

await build({
  entryPoints: {app: join(here, 'src/main.js')},
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  outdir,
  logLevel: 'warning',
})
await build({
  entryPoints: {app: join(here, 'src/style.css')},
  bundle: true,
  minify: true,
  outdir,
  logLevel: 'warning',
})
copyFileSync(join(here, 'index.html'), join(outdir, 'index.html'))

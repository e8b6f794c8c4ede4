'use strict'
// What the browser tests of nsqadmin share: the checks that chromium and
// playwright-core are there (exit 77, skipped, without chromium), servers
// started on loopback ephemeral ports and killed at the end, HTTP, polling
// until a condition holds, and the run with its overall timeout.
const {spawn} = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const net = require('node:net')
const path = require('node:path')

const SKIP = 77
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium'
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR || path.join(process.cwd(), 'screenshots')
const STEP_TIMEOUT_MS = 15000

if (!fs.existsSync(CHROMIUM)) {
  console.log(`SKIP: chromium not found at ${CHROMIUM} (apt-get install chromium chromium-driver; scripts/install-deps.sh installs it)`)
  process.exit(SKIP)
}
let chromium
try {
  ({chromium} = require('playwright-core'))
} catch (err) {
  console.error(`cannot load playwright-core (${err.message}): tests/nsqadmin/node_modules is missing: run scripts/install-deps.sh`)
  process.exit(1)
}
for (const v of ['NSQD_BIN', 'NSQLOOKUPD_BIN', 'NSQADMIN_BIN', ...(process.env.NSQ_EXTRA_BINS || '').split(',').filter(Boolean)]) {
  if (!process.env[v] || !fs.existsSync(process.env[v])) {
    console.error(`${v} is not set or does not exist (${process.env[v]})`)
    process.exit(1)
  }
}

const children = []
const tmpDirs = []

// Starts a server and resolves with the ports its log announces.
function startServer(name, bin, args, want) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, args, {stdio: ['ignore', 'pipe', 'pipe']})
    children.push(proc)
    let log = ''
    const timer = setTimeout(() => reject(new Error(`${name} did not start in time:\n${log}`)), 10000)
    const onData = (d) => {
      log += d
      const ports = {}
      for (const kind of want) {
        const m = new RegExp(`${kind}: listening on 127\\.0\\.0\\.1:(\\d+)`).exec(log)
        if (!m) return
        ports[kind.toLowerCase()] = Number(m[1])
      }
      clearTimeout(timer)
      resolve({proc, ...ports, log: () => log})
    }
    proc.stdout.setEncoding('utf8')
    proc.stderr.setEncoding('utf8')
    proc.stdout.on('data', onData)
    proc.stderr.on('data', onData)
    proc.on('exit', (code, sig) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited (${code ?? sig}) before listening:\n${log}`))
    })
  })
}

async function http(port, method, target, body) {
  const resp = await fetch(`http://127.0.0.1:${port}${target}`, {method, body})
  const text = await resp.text()
  return {status: resp.status, text, json: () => JSON.parse(text)}
}

// Polls fn until it returns a truthy value (bounded); nsqd registration with
// lookupd and message delivery are asynchronous and only visible via APIs.
async function eventually(what, fn, timeoutMs = STEP_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs
  let last
  while (Date.now() < deadline) {
    try {
      last = await fn()
      if (last) return last
    } catch (err) {
      last = err
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`)
}


function cleanup() {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  }
  for (const d of tmpDirs) fs.rmSync(d, {recursive: true, force: true})
}

// A process killed at the end, its output kept for failure messages.
function spawnProcess(bin, args) {
  const proc = spawn(bin, args, {stdio: ['ignore', 'pipe', 'pipe']})
  children.push(proc)
  let log = ''
  proc.stdout.on('data', (d) => { log += d })
  proc.stderr.on('data', (d) => { log += d })
  return {proc, log: () => log}
}

// A free loopback port (another process may still take it first: only for
// servers that cannot listen on port 0, such as etcd).
function freePort() {
  return new Promise((resolve, reject) => {
    const server = require('node:net').createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address()
      server.close(() => resolve(port))
    })
  })
}

// A minimal NSQ V2 consumer (IDENTIFY when given a body, SUB + RDY, FIN
// every message) counting deliveries.
function consume(tcpPort, topic, channel, identify) {
  const sock = net.connect(tcpPort, '127.0.0.1')
  const c = {received: 0, close: () => sock.destroy()}
  let buf = Buffer.alloc(0)
  sock.on('connect', () => {
    sock.write('  V2')
    if (identify) {
      const body = Buffer.from(JSON.stringify(identify))
      const size = Buffer.alloc(4)
      size.writeUInt32BE(body.length)
      sock.write(Buffer.concat([Buffer.from('IDENTIFY\n'), size, body]))
    }
    sock.write(`SUB ${topic} ${channel}\n`)
    sock.write('RDY 100\n')
  })
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d])
    while (buf.length >= 8) {
      const size = buf.readUInt32BE(0)
      if (buf.length < 4 + size) break
      const type = buf.readUInt32BE(4)
      const data = buf.subarray(8, 4 + size)
      buf = buf.subarray(4 + size)
      if (type === 0 && data.toString() === '_heartbeat_') sock.write('NOP\n')
      if (type === 2) {
        c.received++
        sock.write(`FIN ${data.subarray(10, 26).toString()}\n`)
      }
    }
  })
  sock.on('error', () => {})
  return c
}

// Headless chromium and one page on it: `text(selector)` reads an element,
// `shot(name)` saves a screenshot, `errors` collects script errors.
async function openPage() {
  fs.mkdirSync(SCREENSHOT_DIR, {recursive: true})
  const browser = await chromium.launch({executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']})
  const page = await browser.newPage({viewport: {width: 1280, height: 860}})
  page.setDefaultTimeout(STEP_TIMEOUT_MS)
  const errors = []
  page.on('pageerror', (err) => errors.push(err.message))
  return {
    browser, page, errors,
    text: (sel) => page.locator(sel).first().innerText(),
    shot: (name) => page.screenshot({path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true}),
  }
}

// A temporary directory removed at the end.
function tempDir(prefix) {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  tmpDirs.push(d)
  return d
}

// Runs main(), then exits 0, or 1 on a failure or after timeoutMs.
function run(name, main, timeoutMs) {
  const watchdog = setTimeout(() => {
    console.error(`${name}: overall timeout`)
    cleanup()
    process.exit(1)
  }, timeoutMs)
  main().then(() => {
    clearTimeout(watchdog)
    cleanup()
    process.exit(0)
  }, (err) => {
    clearTimeout(watchdog)
    console.error(`FAIL: ${err.stack || err}`)
    cleanup()
    process.exit(1)
  })
}

module.exports = {
  SCREENSHOT_DIR, STEP_TIMEOUT_MS, startServer, spawnProcess, freePort, http, eventually, openPage,
  tempDir, run, consume,
}

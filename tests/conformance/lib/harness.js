'use strict'
// Test harness for the nsqjs conformance suite: starts nsqd (NSQD_BIN) on
// ephemeral ports with a temporary data path, and provides small promise
// helpers around nsqjs Readers/Writers. Every wait has a deadline.

const {spawn} = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const {once} = require('node:events')
let nsq
try {
  nsq = require('nsqjs')
} catch (err) {
  throw new Error(`cannot load nsqjs (${err.message}): tests/conformance/node_modules is missing: run scripts/install-deps.sh`)
}

const START_TIMEOUT_MS = 10000
const STOP_TIMEOUT_MS = 10000

function nsqdBin() {
  const bin = process.env.NSQD_BIN
  if (!bin) {
    throw new Error('NSQD_BIN is not set (path of the nsqd binary under test)')
  }
  if (!fs.existsSync(bin)) {
    throw new Error(`NSQD_BIN=${bin} does not exist`)
  }
  return bin
}

// Rejects with `what` after `ms` unless `promise` settles first.
function withTimeout(promise, ms, what) {
  let timer
  const timeout = new Promise((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${ms} ms: ${what}`)),
      ms
    )
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Starts nsqd and resolves once its stderr announces the TCP port (in a new
 * temporary data path unless `dataPath` names one, e.g. a stopped nsqd's).
 * Returns {host, tcpPort, httpPort|null, dataPath, proc, output(), stop(), kill()}.
 * Register `t.after(() => nsqd.kill())` so a failing test never leaks it.
 */
async function startNsqd(extraArgs = [], {dataPath: reusedDataPath} = {}) {
  const bin = nsqdBin()
  const dataPath = reusedDataPath || fs.mkdtempSync(path.join(os.tmpdir(), 'nsqjs-conf-'))
  const args = [
    '--tcp-address=127.0.0.1:0',
    '--http-address=127.0.0.1:0',
    `--data-path=${dataPath}`,
    ...extraArgs,
  ]
  // The last --http-address wins, as in nsqd's flag parsing; "" disables HTTP.
  const httpFlags = args.filter((a) => a.startsWith('--http-address='))
  const wantHttp = httpFlags.length > 0 && httpFlags[httpFlags.length - 1] !== '--http-address='
  const proc = spawn(bin, args, {stdio: ['ignore', 'pipe', 'pipe']})
  let stderr = ''
  let stdout = ''
  let exited = null
  const exitPromise = new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      exited = {code, signal}
      resolve(exited)
    })
  })
  proc.stdout.setEncoding('utf8')
  proc.stdout.on('data', (d) => {
    stdout += d
  })
  proc.stderr.setEncoding('utf8')

  const output = () =>
    `--- nsqd stderr ---\n${stderr.slice(-4000)}\n--- nsqd stdout ---\n${stdout.slice(-2000)}`

  const ports = await new Promise((resolve, reject) => {
    let tcpPort = null
    const timer = setTimeout(() => {
      cleanup()
      reject(
        new Error(
          `nsqd did not log "TCP: listening on 127.0.0.1:<port>" within ${START_TIMEOUT_MS} ms\n${output()}`
        )
      )
    }, START_TIMEOUT_MS)
    const onData = (d) => {
      stderr += d
      const tcp = /TCP: listening on 127\.0\.0\.1:(\d+)/.exec(stderr)
      if (tcp) tcpPort = Number(tcp[1])
      const httpm = /HTTP: listening on 127\.0\.0\.1:(\d+)/.exec(stderr)
      if (tcpPort && (!wantHttp || httpm)) {
        // nsqd logs HTTP after TCP, sometimes in a later write: wait for it
        // when an HTTP listener was asked for, so httpPort is known.
        cleanup()
        resolve({tcpPort, httpPort: httpm ? Number(httpm[1]) : null})
      }
    }
    const onExit = (code, signal) => {
      cleanup()
      reject(
        new Error(
          `nsqd exited (code ${code}, signal ${signal}) before listening\n${output()}`
        )
      )
    }
    const onError = (err) => {
      cleanup()
      reject(new Error(`cannot spawn ${bin}: ${err.message}`))
    }
    function cleanup() {
      clearTimeout(timer)
      proc.stderr.removeListener('data', onData)
      proc.removeListener('exit', onExit)
      proc.removeListener('error', onError)
      // keep collecting stderr for diagnostics
      proc.stderr.on('data', (d) => {
        stderr += d
        if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19))
      })
    }
    proc.stderr.on('data', onData)
    proc.on('exit', onExit)
    proc.on('error', onError)
  })

  let httpPort = ports.httpPort
  const nsqd = {
    host: '127.0.0.1',
    tcpPort: ports.tcpPort,
    get httpPort() {
      if (httpPort === null) {
        const m = /HTTP: listening on 127\.0\.0\.1:(\d+)/.exec(stderr)
        if (m) httpPort = Number(m[1])
      }
      return httpPort
    },
    dataPath,
    proc,
    output,
    get exited() {
      return exited
    },
    // SIGTERM, wait for exit (deadline), return {code, signal}.
    async stop() {
      if (exited) return exited
      proc.kill('SIGTERM')
      try {
        return await withTimeout(
          exitPromise,
          STOP_TIMEOUT_MS,
          'nsqd to exit after SIGTERM'
        )
      } catch (err) {
        proc.kill('SIGKILL')
        await exitPromise
        throw new Error(`${err.message}\n${output()}`)
      }
    },
    // Cleanup for t.after(): never throws, always reaps, removes the data dir.
    async kill() {
      if (!exited) {
        proc.kill('SIGTERM')
        try {
          await withTimeout(exitPromise, STOP_TIMEOUT_MS, 'nsqd exit')
        } catch {
          proc.kill('SIGKILL')
          await exitPromise
        }
      }
      fs.rmSync(dataPath, {recursive: true, force: true})
    },
  }
  return nsqd
}

// Connects an nsqjs Writer and resolves when it is READY (IDENTIFY done).
async function connectWriter(nsqd, options = {}) {
  const w = new nsq.Writer(nsqd.host, nsqd.tcpPort, options)
  w.errors = []
  w.on('error', (err) => w.errors.push(err))
  const ready = new Promise((resolve, reject) => {
    w.once('ready', resolve)
    w.once('error', reject)
    w.once('closed', () => reject(new Error('writer closed before ready')))
  })
  w.connect()
  await withTimeout(ready, 5000, 'nsqjs Writer ready')
  guardCompressionStreams(w.conn, w)
  return w
}

// nsqjs pipes the socket into a zlib/snappy stream without an 'error'
// listener: when the connection closes (nsqd never terminates the compressed
// stream, as in Go) the inflater reports "unexpected end of file" as an
// uncaught exception. Record such errors instead.
function guardCompressionStreams(conn, owner) {
  owner.streamErrors = owner.streamErrors || []
  for (const s of [conn.inflater, conn.deflater]) {
    if (s) s.on('error', (err) => owner.streamErrors.push(err))
  }
}

function publish(writer, topic, msgs) {
  return new Promise((resolve, reject) => {
    writer.publish(topic, msgs, (err) => (err ? reject(err) : resolve()))
  })
}

function deferPublish(writer, topic, msg, ms) {
  return new Promise((resolve, reject) => {
    // nsqjs 0.13.0 requires an array here (produceMessages rejects a bare message).
    writer.deferPublish(topic, [msg], ms, (err) =>
      err ? reject(err) : resolve()
    )
  })
}

/**
 * Creates an nsqjs Reader (not yet connected). `onMessage` is attached before
 * connect. Resolves when the reader's connection is subscribed (SUB → OK), so
 * the channel exists on the server.
 */
async function connectReader(nsqd, topic, channel, options, onMessage) {
  const r = new nsq.Reader(topic, channel, {
    nsqdTCPAddresses: [`${nsqd.host}:${nsqd.tcpPort}`],
    ...options,
  })
  r.errors = []
  r.closedEvents = 0
  r.on('error', (err) => r.errors.push(err))
  r.on('nsqd_closed', () => {
    r.closedEvents++
  })
  if (onMessage) r.on('message', onMessage)
  const ready = once(r, 'ready')
  r.connect()
  await withTimeout(ready, 5000, `nsqjs Reader ${topic}/${channel} ready`)
  for (const c of r.readerRdy.connections) guardCompressionStreams(c.conn, r)
  return r
}

// The single NSQDConnection of a Reader connected to one nsqd.
function readerConnection(reader) {
  const c = reader.readerRdy.connections[0]
  if (!c) throw new Error('reader has no connection')
  return c.conn
}

// Closes a Reader and resolves once its connection reported CLOSED.
async function closeReader(reader) {
  if (reader.readerRdy.connections.length === 0) {
    reader.close()
    return
  }
  const closed = once(reader, 'nsqd_closed')
  reader.close()
  await withTimeout(closed, 5000, 'reader close')
}

async function closeWriter(writer) {
  if (!writer.conn || !writer.ready) return
  const closed = once(writer, 'closed')
  writer.close()
  await withTimeout(closed, 5000, 'writer close')
}

// GET http://127.0.0.1:<httpPort><path>, JSON-decoded; rejects on any failure.
function httpGetJSON(port, urlPath, timeoutMs = 2000) {
  return new Promise((resolve, reject) => {
    const req = http.get(
      {host: '127.0.0.1', port, path: urlPath, timeout: timeoutMs},
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (d) => {
          body += d
        })
        res.on('end', () => {
          if (res.statusCode !== 200) {
            reject(new Error(`GET ${urlPath}: HTTP ${res.statusCode} ${body}`))
            return
          }
          try {
            resolve(JSON.parse(body))
          } catch (e) {
            reject(new Error(`GET ${urlPath}: bad JSON: ${body.slice(0, 200)}`))
          }
        })
      }
    )
    req.on('timeout', () => req.destroy(new Error(`GET ${urlPath} timed out`)))
    req.on('error', reject)
  })
}

/**
 * A promise with external resolve/reject, plus a condition checker:
 * `w.check()` resolves it once `pred()` is true.
 */
function waiter(pred) {
  let resolve, reject
  const promise = new Promise((res, rej) => {
    resolve = res
    reject = rej
  })
  const w = {
    promise,
    resolve,
    reject,
    done: false,
    check() {
      if (!w.done && pred()) {
        w.done = true
        resolve()
      }
    },
  }
  return w
}

module.exports = {
  nsq,
  startNsqd,
  connectWriter,
  connectReader,
  readerConnection,
  closeReader,
  closeWriter,
  publish,
  deferPublish,
  httpGetJSON,
  withTimeout,
  waiter,
  delay,
}

'use strict'
// Starts nsqlookupd (NSQLOOKUPD_BIN) on loopback ports for the conformance
// tests that need discovery (cluster.test.js, squeaky.test.js).

const {spawn} = require('node:child_process')
const fs = require('node:fs')
const h = require('./harness')

function lookupdBin() {
  const bin = process.env.NSQLOOKUPD_BIN
  if (!bin) throw new Error('NSQLOOKUPD_BIN is not set (path of the nsqlookupd binary under test)')
  if (!fs.existsSync(bin)) throw new Error(`NSQLOOKUPD_BIN=${bin} does not exist`)
  return bin
}

/**
 * Starts nsqlookupd (by default on ephemeral ports) and resolves once it has
 * logged both listening lines. Returns {tcpPort, httpPort, output(), kill(signal)}.
 */
async function startLookupd({tcp = '127.0.0.1:0', http: httpAddr = '127.0.0.1:0'} = {}) {
  const bin = lookupdBin()
  const args = [`--tcp-address=${tcp}`, `--http-address=${httpAddr}`, '--broadcast-address=127.0.0.1']
  const proc = spawn(bin, args, {stdio: ['ignore', 'pipe', 'pipe']})
  let log = ''
  let exited = null
  const exitPromise = new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      exited = {code, signal}
      resolve(exited)
    })
  })
  const output = () => `--- nsqlookupd ${args.join(' ')} ---\n${log.slice(-4000)}`
  const ports = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`nsqlookupd did not log its listening lines within 10 s\n${output()}`))
    }, 10000)
    const onData = (d) => {
      log += d
      if (log.length > 1 << 20) log = log.slice(-(1 << 19))
      const tcpm = /TCP: listening on 127\.0\.0\.1:(\d+)/.exec(log)
      const httpm = /HTTP: listening on 127\.0\.0\.1:(\d+)/.exec(log)
      if (tcpm && httpm) {
        cleanup()
        resolve({tcpPort: Number(tcpm[1]), httpPort: Number(httpm[1])})
      }
    }
    const onExit = (code, signal) => {
      cleanup()
      reject(new Error(`nsqlookupd exited (code ${code}, signal ${signal}) before listening\n${output()}`))
    }
    function cleanup() {
      clearTimeout(timer)
      proc.removeListener('exit', onExit)
    }
    proc.stdout.setEncoding('utf8')
    proc.stderr.setEncoding('utf8')
    proc.stdout.on('data', onData)
    proc.stderr.on('data', onData)
    proc.on('exit', onExit)
    proc.on('error', (err) => {
      cleanup()
      reject(new Error(`cannot spawn ${bin}: ${err.message}`))
    })
  })
  return {
    ...ports,
    output,
    get exited() {
      return exited
    },
    // Sends `signal` and waits for the exit; never throws (cleanup-safe).
    async kill(signal = 'SIGTERM') {
      if (!exited) {
        proc.kill(signal)
        try {
          await h.withTimeout(exitPromise, 10000, 'nsqlookupd exit')
        } catch {
          proc.kill('SIGKILL')
          await exitPromise
        }
      }
      return exited
    },
  }
}

module.exports = {startLookupd}

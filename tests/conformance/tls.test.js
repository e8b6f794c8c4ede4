'use strict'
// TLS as nsqjs performs it: IDENTIFY tls_v1, the TLS handshake in the middle
// of the TCP stream (server verified against a CA made here), then snappy or
// deflate on top. Readers and Writers move 10k messages each way with every
// body checked. Also: a client certificate required (given / missing) and
// --tls-required refusing a plain client.

const {test, before, after} = require('node:test')
const assert = require('node:assert/strict')
const {execFileSync} = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const h = require('./lib/harness')

const COUNT = 10000
const body = (i) => `tls${i}:${'payload-'.repeat(i % 25)}`

// Certificates made at test time with the openssl CLI (no committed keys).
let pki
before(() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsqjs-tls-'))
  const f = (n) => path.join(dir, n)
  const ossl = (...args) => execFileSync('openssl', args, {stdio: 'ignore'})
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  fs.writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
  ossl('req', '-x509', ...key, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=nsqjs-test-ca')
  ossl('req', ...key, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1')
  ossl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial',
    '-out', f('server.pem'), '-days', '2', '-extfile', f('server.ext'))
  ossl('req', ...key, '-keyout', f('client.key'), '-out', f('client.csr'), '-subj', '/CN=nsqjs-client')
  ossl('x509', '-req', '-in', f('client.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial',
    '-out', f('client.pem'), '-days', '2')
  pki = {dir, f, ca: fs.readFileSync(f('ca.pem')), cert: fs.readFileSync(f('client.pem')), key: fs.readFileSync(f('client.key'))}
})
after(() => fs.rmSync(pki.dir, {recursive: true, force: true}))

const tlsArgs = () => [`--tls-cert=${pki.f('server.pem')}`, `--tls-key=${pki.f('server.key')}`, '--https-address=127.0.0.1:0']
const tlsOptions = () => ({tls: true, tlsVerification: true, ca: pki.ca})

async function roundTrip(t, nsqdArgs, options, expectResp) {
  const nsqd = await h.startNsqd(nsqdArgs)
  t.after(() => nsqd.kill())
  const topic = 'tls_topic'
  const got = new Set()
  let dups = 0
  const all = h.waiter(() => got.size >= COUNT)
  const reader = await h.connectReader(nsqd, topic, 'ch', {maxInFlight: 500, ...options}, (msg) => {
    const b = msg.body.toString()
    if (got.has(b)) dups++
    got.add(b)
    msg.finish()
    all.check()
  })
  t.after(() => reader.close())
  const rresp = h.readerConnection(reader).statemachine.identifyResponse
  for (const [k, v] of Object.entries(expectResp)) assert.equal(rresp[k], v, `reader IDENTIFY response ${k}`)

  const writer = await h.connectWriter(nsqd, options)
  t.after(() => writer.close())
  const wresp = writer.conn.statemachine.identifyResponse
  for (const [k, v] of Object.entries(expectResp)) assert.equal(wresp[k], v, `writer IDENTIFY response ${k}`)

  const msgs = Array.from({length: COUNT}, (_, i) => body(i))
  for (let i = 0; i < COUNT; i += 1000) await h.publish(writer, topic, msgs.slice(i, i + 1000))
  await h.withTimeout(all.promise, 30000, `${COUNT} messages through TLS (got ${got.size})`)
  assert.equal(dups, 0, 'no duplicates')
  for (let i = 0; i < COUNT; i++) assert.ok(got.has(body(i)), `message ${i} missing or corrupted`)
  assert.equal(got.size, COUNT)
  assert.deepEqual([...reader.errors, ...writer.errors].map(String), [])
  assert.deepEqual([...reader.streamErrors, ...writer.streamErrors].map(String), [], 'no decompression errors')
  assert.equal(reader.closedEvents, 0)
}

test('tls: nsqjs Reader and Writer, server certificate verified, 10k messages', {timeout: 60000}, async (t) => {
  await roundTrip(t, tlsArgs(), tlsOptions(), {tls_v1: true, snappy: false, deflate: false})
})

test('tls + snappy: 10k messages', {timeout: 60000}, async (t) => {
  await roundTrip(t, tlsArgs(), {...tlsOptions(), snappy: true}, {tls_v1: true, snappy: true, deflate: false})
})

test('tls + deflate: 10k messages', {timeout: 60000}, async (t) => {
  await roundTrip(t, tlsArgs(), {...tlsOptions(), deflate: true, deflateLevel: 5},
    {tls_v1: true, snappy: false, deflate: true, deflate_level: 5})
})

test('client certificate required: given is accepted, missing is refused', {timeout: 30000}, async (t) => {
  const nsqd = await h.startNsqd([...tlsArgs(), '--tls-client-auth-policy=require-verify',
    `--tls-root-ca-file=${pki.f('ca.pem')}`])
  t.after(() => nsqd.kill())
  const writer = await h.connectWriter(nsqd, {...tlsOptions(), cert: pki.cert, key: pki.key})
  t.after(() => writer.close())
  await h.publish(writer, 'cert_topic', 'with a certificate')

  const refused = new (require('nsqjs').Writer)(nsqd.host, nsqd.tcpPort, tlsOptions())
  const outcome = new Promise((resolve) => {
    refused.once('ready', () => resolve('ready'))
    refused.once('error', () => resolve('error'))
    refused.once('closed', () => resolve('closed'))
  })
  refused.on('error', () => {})
  refused.connect()
  assert.notEqual(await h.withTimeout(outcome, 10000, 'writer without certificate'), 'ready')
  refused.close()
})

test('--tls-required: a plain nsqjs Writer is refused', {timeout: 30000}, async (t) => {
  const nsqd = await h.startNsqd([...tlsArgs(), '--tls-required=true'])
  t.after(() => nsqd.kill())
  const writer = await h.connectWriter(nsqd, {})
  t.after(() => writer.close())
  await assert.rejects(h.publish(writer, 'plain_topic', 'x'), /TLS required/)
})

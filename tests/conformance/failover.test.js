'use strict'
// Cluster mode (docs/replication.md) through an unchanged client: nsqjs
// Readers that know only nsqlookupd, and nsqjs Writers publishing to a
// follower, while the topic's leader is SIGKILLed. A real etcd
// (etcd-server), nsqlookupd and three nsqd. Every message a Writer got OK
// for reaches the Reader (at least once): the new leader delivers what the
// old one had not finished, and the Reader finds it through nsqlookupd.

const {test} = require('node:test')
const assert = require('node:assert/strict')
const {spawn} = require('node:child_process')
const fs = require('node:fs')
const http = require('node:http')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')
const h = require('./lib/harness')
const {startLookupd} = require('./lib/lookupd')

const TOPIC = 'failover_topic'
const CHANNEL = 'ch'
const BEFORE = 300 // acknowledged before the kill
const AFTER = 300 // acknowledged after it

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.on('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const {port} = s.address()
      s.close(() => resolve(port))
    })
  })
}

function post(port, urlPath, body = '') {
  return new Promise((resolve, reject) => {
    const req = http.request({host: '127.0.0.1', port, path: urlPath, method: 'POST', timeout: 2000}, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => {
        text += d
      })
      res.on('end', () => resolve({status: res.statusCode, body: text}))
    })
    req.on('timeout', () => req.destroy(new Error(`POST ${urlPath} timed out`)))
    req.on('error', reject)
    req.end(body)
  })
}

async function eventually(pred, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await pred()) return
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`)
    await h.delay(50) // polling interval, not synchronisation
  }
}

async function startEtcd(t) {
  const bin = ['/usr/bin/etcd', '/usr/local/bin/etcd'].find((p) => fs.existsSync(p))
  if (!bin) throw new Error('no etcd: scripts/install-deps.sh installs etcd-server')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsqjs-etcd-'))
  const clientPort = await freePort()
  const peerPort = await freePort()
  const client = `http://127.0.0.1:${clientPort}`
  const peer = `http://127.0.0.1:${peerPort}`
  const proc = spawn(bin, [
    '--name=conformance', `--data-dir=${dir}/data`, `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`, `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`, `--initial-cluster=conformance=${peer}`, '--log-level=warn',
  ], {stdio: 'ignore'})
  t.after(() => {
    proc.kill('SIGKILL')
    fs.rmSync(dir, {recursive: true, force: true})
  })
  await eventually(async () => {
    try {
      return (await post(clientPort, '/v3/kv/range', '{"key":"AA=="}')).status === 200
    } catch {
      return false
    }
  }, 20000, 'etcd answers')
  return client
}

// The topic's replication object in a node's /stats.
async function replication(node) {
  try {
    const stats = await h.httpGetJSON(node.httpPort, `/stats?format=json&topic=${TOPIC}`)
    const topic = stats.topics.find((x) => x.topic_name === TOPIC)
    return topic ? topic.replication : undefined
  } catch {
    return undefined
  }
}

// Publishes one message through a Writer to `node`; a new Writer after a
// failure (nsqd closes the connection on E_PUB_FAILED). True once OK.
async function publishOne(state, node, body) {
  try {
    if (!state.writer) state.writer = await h.connectWriter(node)
    await h.withTimeout(h.publish(state.writer, TOPIC, body), 15000, 'publish')
    return true
  } catch {
    const w = state.writer
    state.writer = null
    if (w) w.close()
    return false
  }
}

test('nsqjs keeps every acknowledged message through a leader SIGKILL', {timeout: 120000}, async (t) => {
  const etcd = await startEtcd(t)
  const lookupd = await startLookupd()
  t.after(() => lookupd.kill('SIGKILL'))
  const nodes = []
  for (let i = 0; i < 3; i++) {
    const node = await h.startNsqd([
      '--broadcast-address=127.0.0.1', `--etcd-endpoints=${etcd}`, '--cluster-lease-ttl=2s',
      `--lookupd-tcp-address=127.0.0.1:${lookupd.tcpPort}`,
    ])
    t.after(() => node.kill())
    await eventually(() => node.output().includes('CLUSTER: joined'), 10000, `node ${i} joins`)
    nodes.push(node)
  }
  const created = await post(nodes[0].httpPort, `/topic/create?topic=${TOPIC}`)
  assert.equal(created.status, 200)
  await eventually(async () => {
    const r = await replication(nodes[1])
    return r && r.isr.length === 3 && r.leader === `127.0.0.1:${nodes[0].tcpPort}`
  }, 10000, 'the topic placed on all three, node 0 leading')

  const received = new Map() // body -> deliveries
  const reader = new h.nsq.Reader(TOPIC, CHANNEL, {
    lookupdHTTPAddresses: [`127.0.0.1:${lookupd.httpPort}`],
    lookupdPollInterval: 1,
    maxInFlight: 50,
  })
  reader.on('error', () => {}) // connections to the killed leader fail
  reader.on('message', (msg) => {
    const b = msg.body.toString()
    received.set(b, (received.get(b) || 0) + 1)
    msg.finish()
  })
  reader.connect()
  t.after(() => reader.close())

  // Writers publish to a follower (node 1), which passes publishes on to the leader.
  const acked = []
  const state = {writer: null}
  t.after(() => state.writer && state.writer.close())
  let i = 0
  while (acked.length < BEFORE) {
    const body = `m${i++}`
    if (await publishOne(state, nodes[1], body)) acked.push(body)
  }
  nodes[0].proc.kill('SIGKILL')
  while (acked.length < BEFORE + AFTER) {
    const body = `m${i++}`
    if (await publishOne(state, nodes[1], body)) acked.push(body)
  }
  const r1 = await replication(nodes[1])
  assert.ok(r1 && r1.epoch >= 2, `a new leader: ${JSON.stringify(r1)}`)

  await eventually(() => acked.every((b) => received.has(b)), 30000,
    `every acknowledged message delivered (${acked.filter((b) => !received.has(b)).length} missing)`)
  const again = [...received.values()].filter((n) => n > 1).length
  t.diagnostic(`${acked.length} acknowledged, ${received.size} delivered, ${again} more than once, ` +
    `${i - acked.length} publishes failed during the failover`)
})

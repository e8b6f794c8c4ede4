'use strict'
// nsqadmin's view of a replicated topic (cluster mode, docs/replication.md)
// in headless chromium: a real etcd, nsqlookupd, three nsqd in cluster mode
// and nsqadmin, all on loopback. The topic page shows the leader, each
// replica in sync or not and its lag, as the leader's /stats says; when a
// follower dies, the page shows it out of sync once the leader dropped it.
//
// Env: as e2e.test.js, plus ETCD_BIN (etcd-server's binary). Exit 0 pass,
// 1 fail, 77 skipped (no chromium).
const {
  startServer, spawnProcess, freePort, http, eventually, openPage, tempDir, run,
} = require('./harness.js')
const fs = require('node:fs')
const assert = require('node:assert/strict')

const TOPIC = 'replicated'

async function startEtcd() {
  const [client, peer] = [await freePort(), await freePort()]
  const etcd = spawnProcess(process.env.ETCD_BIN, [
    '--name=nsqadmin-test', `--data-dir=${tempDir('nsqadmin-etcd-')}`,
    `--listen-client-urls=http://127.0.0.1:${client}`, `--advertise-client-urls=http://127.0.0.1:${client}`,
    `--listen-peer-urls=http://127.0.0.1:${peer}`, `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
    `--initial-cluster=nsqadmin-test=http://127.0.0.1:${peer}`, '--log-level=warn',
  ])
  await eventually(`etcd answering (${etcd.log()})`, async () =>
    (await http(client, 'POST', '/v3/kv/range', '{"key":"AA=="}')).status === 200, 20000)
  return client
}

// The topic's replication object in a node's /stats.
async function replication(nsqd) {
  const stats = (await http(nsqd.http, 'GET', `/stats?format=json&topic=${TOPIC}`)).json()
  return (stats.topics || []).find((t) => t.topic_name === TOPIC)?.replication
}

async function main() {
  const etcdPort = await startEtcd()
  const lookupd = await startServer('nsqlookupd', process.env.NSQLOOKUPD_BIN,
    ['--tcp-address=127.0.0.1:0', '--http-address=127.0.0.1:0'], ['TCP', 'HTTP'])
  const nsqd = []
  for (let i = 0; i < 3; i++) {
    nsqd.push(await startServer(`nsqd${i}`, process.env.NSQD_BIN, [
      '--tcp-address=127.0.0.1:0', '--http-address=127.0.0.1:0', `--data-path=${tempDir('nsqadmin-cluster-')}`,
      '--broadcast-address=127.0.0.1', `--lookupd-tcp-address=127.0.0.1:${lookupd.tcp}`,
      `--etcd-endpoints=http://127.0.0.1:${etcdPort}`, '--cluster-lease-ttl=2s',
    ], ['TCP', 'HTTP']))
  }
  const ids = nsqd.map((n) => `127.0.0.1:${n.tcp}`)
  for (const n of nsqd) await eventually('the node joined the cluster', () => n.log().includes('CLUSTER: joined'))
  await eventually('the topic created', async () =>
    (await http(nsqd[0].http, 'POST', `/topic/create?topic=${TOPIC}`)).status === 200)
  const placed = await eventually('three replicas in sync', async () => {
    const r = await replication(nsqd[0])
    return r && r.role === 'leader' && r.isr.length === 3 && r
  })
  assert.equal(placed.leader, ids[0], 'the creator leads')
  assert.equal((await http(nsqd[0].http, 'POST', `/mpub?topic=${TOPIC}`, 'a\nb\nc\n')).status, 200)
  await eventually('lookupd finds the leader', async () =>
    (await http(lookupd.http, 'GET', `/lookup?topic=${TOPIC}`)).json().producers?.length === 1)
  const admin = await startServer('nsqadmin', process.env.NSQADMIN_BIN, [
    '--http-address=127.0.0.1:0', `--lookupd-http-address=127.0.0.1:${lookupd.http}`,
  ], ['HTTP'])

  const {browser, page, errors: consoleErrors, text, shot} = await openPage()
  try {

    await page.goto(`http://127.0.0.1:${admin.http}/topics/${TOPIC}`)
    await page.locator('[data-testid=topic-replication]').waitFor()
    assert.equal(await text('[data-testid=replication-leader]'), ids[0])
    assert.equal(await text('[data-testid=replication-epoch]'), String(placed.epoch))
    assert.equal(await text('[data-testid=replication-isr]'), '3 of 3')
    assert.equal(await page.locator('[data-testid=topic-replicas] tbody tr').count(), 3)
    assert.equal(await page.locator(`[data-replica="${ids[0]}"] [data-testid=replica-leader]`).count(), 1)
    assert.equal(await page.locator('[data-testid=replica-out-of-sync]').count(), 0)
    await shot('cluster-topic')
    console.log('ok - the topic page shows the leader and three replicas in sync')

    // A follower dies: after the lease TTL the leader drops it from the
    // in-sync set, and the page says so.
    nsqd[2].proc.kill('SIGKILL')
    await eventually('the leader dropped the dead follower', async () =>
      (await replication(nsqd[0]))?.isr.length === 2, 20000)
    await page.reload()
    await page.locator('[data-testid=topic-replication]').waitFor()
    assert.equal(await text('[data-testid=replication-isr]'), '2 of 3')
    await page.locator(`[data-replica="${ids[2]}"] [data-testid=replica-out-of-sync]`).waitFor()
    assert.equal(await page.locator('[data-testid=replica-out-of-sync]').count(), 1)
    await shot('cluster-topic-follower-down')
    console.log('ok - a dead follower shows out of sync')

    // The API behind the page carries the same object.
    const api = (await http(admin.http, 'GET', `/api/topics/${TOPIC}`)).json()
    assert.equal(api.replication.leader, ids[0])
    assert.deepEqual([...api.replication.isr].sort(), [ids[0], ids[1]].sort())
    assert.deepEqual(consoleErrors, [], 'no script errors in the page')
  } finally {
    await browser.close()
  }
}

if (!process.env.ETCD_BIN || !fs.existsSync(process.env.ETCD_BIN)) {
  console.log('SKIP: no etcd (scripts/install-deps.sh installs etcd-server)')
  process.exit(77)
}
run('nsqadmin cluster', main, 120000)

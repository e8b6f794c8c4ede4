'use strict'
// nsqadmin in a real browser: headless Debian chromium driven by
// playwright-core (no browser download: executablePath is the apt
// chromium). The test starts its own cluster on loopback ephemeral ports:
// one nsqlookupd, two nsqd registered to it, and nsqadmin reading the
// lookupd; then it uses the UI as an operator would and checks the outcome
// through nsqd's and nsqlookupd's own HTTP APIs.
//
// Env: NSQD_BIN, NSQLOOKUPD_BIN, NSQADMIN_BIN (binaries under test),
// SCREENSHOT_DIR (where the page screenshots go), CHROMIUM (default
// /usr/bin/chromium). Exit 0 pass, 1 fail, 77 skipped (no chromium).

const {
  SCREENSHOT_DIR, startServer, http, eventually, openPage, tempDir, run, consume,
} = require('./harness.js')
const net = require('node:net')
const nodeHttp = require('node:http')
const assert = require('node:assert/strict')

async function channelStats(nsqd, topic, channel) {
  const stats = (await http(nsqd.http, 'GET', `/stats?format=json&topic=${topic}&channel=${channel}`)).json()
  const t = (stats.topics || [])[0]
  return t && t.channels.find((c) => c.channel_name === channel)
}

async function main() {
  const lookupd = await startServer('nsqlookupd', process.env.NSQLOOKUPD_BIN,
    ['--tcp-address=127.0.0.1:0', '--http-address=127.0.0.1:0'], ['TCP', 'HTTP'])
  const nsqd = []
  for (let i = 0; i < 2; i++) {
    const dataPath = tempDir('nsqadmin-e2e-')
    // nsqd0 runs in zone z1 of region r1, with topology-aware consumption.
    const topology = i === 0 ? ['--topology-region=r1', '--topology-zone=z1',
      '--enable-experiment=topology-aware-consumption'] : []
    nsqd.push(await startServer(`nsqd${i}`, process.env.NSQD_BIN, [
      '--tcp-address=127.0.0.1:0', '--http-address=127.0.0.1:0', `--data-path=${dataPath}`,
      '--broadcast-address=127.0.0.1', `--lookupd-tcp-address=127.0.0.1:${lookupd.tcp}`,
      '--e2e-processing-latency-percentile=0.99,0.5', ...topology,
    ], ['TCP', 'HTTP']))
  }
  const admin = await startServer('nsqadmin', process.env.NSQADMIN_BIN, [
    '--http-address=127.0.0.1:0', `--lookupd-http-address=127.0.0.1:${lookupd.http}`,
  ], ['HTTP'])
  const index = await http(admin.http, 'GET', '/')
  assert.ok(index.text.includes('static/app.js'),
    'nsqadmin serves the not-built page: run scripts/install-deps.sh (npm build of tools/nsqadmin/web) and rebuild')

  // Data: a topic with no channel keeps what is published (its depth), and a
  // channel with a live consumer for the pause test.
  await http(nsqd[0].http, 'POST', '/mpub?topic=e2e_depth', 'a\nb\nc\nd\ne\n')
  await http(nsqd[1].http, 'POST', '/mpub?topic=e2e_depth', '1\n2\n3\n4\n5\n6\n7\n')
  await http(nsqd[0].http, 'POST', '/topic/create?topic=e2e_work')
  await http(nsqd[0].http, 'POST', '/channel/create?topic=e2e_work&channel=workers')
  const consumer = consume(nsqd[0].tcp, 'e2e_work', 'workers',
    {topology_region: 'r1', topology_zone: 'z1'})
  await eventually('the consumer subscribed', async () => (await channelStats(nsqd[0], 'e2e_work', 'workers'))?.client_count === 1)
  await http(nsqd[0].http, 'POST', '/mpub?topic=e2e_work', 'x\ny\nz\n')
  await eventually('3 messages delivered', () => consumer.received === 3)
  // Dead letters and TTL (nsq-cpp settings), shown on the channel page.
  const set = await http(nsqd[0].http, 'POST', '/channel/settings?topic=e2e_work&channel=workers',
    '{"max_attempts":5,"dead_letter_topic":"e2e_dlq","message_ttl":"1h","max_depth":1000}')
  assert.equal(set.status, 200, set.text)
  await eventually('lookupd lists both nsqd for e2e_depth', async () =>
    (await http(lookupd.http, 'GET', '/lookup?topic=e2e_depth')).json().producers?.length === 2)

  const {browser, page, errors: consoleErrors, text, shot} = await openPage()
  try {
    const base = `http://127.0.0.1:${admin.http}`
    const waitText = (sel, want) => page.waitForFunction(([s, w]) => {
      const el = document.querySelector(s)
      return el && el.textContent.trim() === w
    }, [sel, want])
    // Every confirmation must be a confirm() dialog, and is accepted.
    const acceptNextConfirm = (expect) => page.once('dialog', async (d) => {
      try {
        assert.equal(d.type(), 'confirm')
        assert.match(d.message(), expect)
      } finally {
        await d.accept()
      }
    })

    // Topics list.
    await page.goto(`${base}/topics`)
    await page.locator('[data-testid=topics-table] a', {hasText: 'e2e_depth'}).waitFor()
    await shot('topics')
    console.log('ok - topics page lists the topics')

    // One topic: the depth the test produced, and one row per nsqd.
    await page.locator('[data-testid=topics-table] a', {hasText: 'e2e_depth'}).click()
    await waitText('[data-testid=topic-depth]', '12')
    assert.equal(await page.locator('[data-testid=topic-nodes] tbody tr').count(), 2)
    assert.equal(await text('[data-testid=topic-messages]'), '12')
    await shot('topic')
    console.log('ok - topic page shows depth 12 over 2 nodes')

    // One channel, with its client, then pause it through the UI.
    await page.goto(`${base}/topics/e2e_work/workers`)
    await page.locator('[data-testid=channel-clients] tbody tr td', {hasText: '127.0.0.1'}).first().waitFor()
    assert.equal(await text('[data-testid=channel-connections]'), '1')
    // Topology-aware consumption: deliveries by locality and the client's zone.
    assert.equal(await text('[data-testid=channel-zone-local]'), '3')
    assert.equal(await text('[data-testid=channel-global]'), '0')
    assert.equal(await page.locator('[data-testid=channel-clients] td[data-locality=zone-local]').count(), 1)
    assert.equal(await text('[data-testid=channel-max-attempts]'), '5')
    assert.equal(await text('[data-testid=channel-dead-letter-topic]'), 'e2e_dlq')
    assert.equal(await text('[data-testid=channel-message-ttl]'), '1h0m0s')
    assert.equal(await text('[data-testid=channel-max-depth]'), '1,000 (reject)')
    // Peek: what the channel holds, nothing consumed (3 were delivered and FIN'd).
    await page.locator('[data-testid=peek-queued]').click()
    await page.locator('[data-testid=channel-peek-result]', {hasText: 'no queued messages'}).waitFor()
    // nsqd measures end-to-end latency (--e2e-processing-latency-percentile).
    await page.locator('[data-testid=channel-latency] tbody tr').nth(1).waitFor()
    assert.equal(await page.locator('[data-testid=channel-latency] tbody tr').count(), 2)
    await shot('channel')
    console.log('ok - channel page shows its client')

    acceptNextConfirm(/pause channel workers/)
    await page.getByRole('button', {name: 'Pause Channel', exact: true}).click()
    await page.locator('[data-testid=channel-paused]').waitFor()
    await page.getByRole('button', {name: 'Unpause Channel', exact: true}).waitFor()
    const paused = await channelStats(nsqd[0], 'e2e_work', 'workers')
    assert.equal(paused.paused, true, 'nsqd /stats says the channel is paused')
    await http(nsqd[0].http, 'POST', '/mpub?topic=e2e_work', 'p\nq\nr\ns\n')
    await eventually('4 messages held in the paused channel', async () =>
      (await channelStats(nsqd[0], 'e2e_work', 'workers')).depth === 4)
    const held = await channelStats(nsqd[0], 'e2e_work', 'workers')
    assert.equal(held.in_flight_count, 0, 'nothing in flight while paused')
    assert.equal(held.clients[0].message_count, 3, 'nsqd sent no message to the client while paused')
    assert.equal(consumer.received, 3, 'the consumer got nothing while paused')
    await page.locator('[data-testid=peek-queued]').click()
    await page.waitForFunction(() =>
      document.querySelectorAll('[data-testid=channel-peek] tbody tr').length === 4)
    assert.deepEqual((await page.locator('[data-testid=channel-peek] td.body').allTextContents()).sort(),
      ['p', 'q', 'r', 's'])
    await shot('channel-peek')
    assert.equal((await channelStats(nsqd[0], 'e2e_work', 'workers')).depth, 4, 'peeking consumed nothing')
    console.log('ok - pausing through the UI stopped delivery (nsqd /stats)')

    acceptNextConfirm(/unpause channel workers/)
    await page.getByRole('button', {name: 'Unpause Channel', exact: true}).click()
    await eventually('delivery resumed after unpause', () => consumer.received === 7)
    console.log('ok - unpausing through the UI resumed delivery')
    consumer.close()

    // Nodes, one node, lookup and counter pages.
    await page.goto(`${base}/nodes`)
    await waitText('[data-testid=node-count]', '(2)')
    // nsqd0's topology, from its registration with nsqlookupd.
    assert.deepEqual((await page.locator('[data-testid=node-topology]').allTextContents()).sort(),
      ['', 'r1 / z1'])
    await shot('nodes')
    const nodeName = `127.0.0.1:${nsqd[0].http}`
    await page.locator(`[data-testid=nodes-table] tr[data-node="${nodeName}"] a`).first().click()
    await waitText('[data-testid=node-name]', nodeName)
    await page.locator('[data-testid=node-table] a', {hasText: 'e2e_work'}).waitFor()
    await shot('node')
    await page.goto(`${base}/lookup`)
    await page.locator('[data-testid=lookupd-table] td', {hasText: `127.0.0.1:${lookupd.http}`}).waitFor()
    await shot('lookup')
    await page.goto(`${base}/counter`)
    await waitText('[data-testid=counter-total]', '7')
    // The rate needs two samples: the page refreshes itself.
    await page.waitForFunction(() => /\/s$/.test(document.querySelector('[data-testid=counter-rate]')?.textContent || ''))
    await shot('counter')
    console.log('ok - nodes, node, lookup and counter pages render')

    // Delete a topic through the UI.
    await page.goto(`${base}/topics/e2e_depth`)
    await waitText('[data-testid=topic-depth]', '12')
    acceptNextConfirm(/delete topic e2e_depth/)
    await page.getByRole('button', {name: 'Delete Topic', exact: true}).click()
    await page.waitForURL(`${base}/topics`)
    for (const n of nsqd) {
      const stats = (await http(n.http, 'GET', '/stats?format=json&topic=e2e_depth')).json()
      assert.equal(stats.topics, null, 'the topic is gone from nsqd')
    }
    await eventually('lookupd forgot e2e_depth', async () =>
      !(await http(lookupd.http, 'GET', '/topics')).json().topics.includes('e2e_depth'))
    await page.waitForFunction(() => !document.body.innerText.includes('e2e_depth'))
    console.log('ok - deleting a topic through the UI removed it from nsqd and lookupd')

    // Create a topic and channel through the lookup page's form.
    await page.goto(`${base}/lookup`)
    await page.locator('[data-testid=create-topic]').fill('e2e_created')
    await page.locator('[data-testid=create-channel]').fill('ch1')
    acceptNextConfirm(/create topic e2e_created and channel ch1/)
    await page.getByRole('button', {name: 'Create', exact: true}).click()
    await page.locator('[data-testid=inactive-table] tr', {hasText: 'ch1'}).waitFor()
    const lookupdTopics = (await http(lookupd.http, 'GET', '/topics')).json().topics
    assert.ok(lookupdTopics.includes('e2e_created'), 'lookupd knows the created topic')
    const lookupdChannels = (await http(lookupd.http, 'GET', '/channels?topic=e2e_created')).json().channels
    assert.deepEqual(lookupdChannels, ['ch1'])
    console.log('ok - creating a topic/channel through the UI registered it in lookupd')

    // A topic no nsqd produces: Go's API answers 502 "Failed to query any
    // nsqd: "; the page shows an empty topic, not an error.
    await page.goto(`${base}/topics/e2e_created`)
    await page.locator('[data-testid=topic-no-producers]').waitFor()
    assert.equal(await page.locator('[data-testid=page-error]').count(), 0)
    assert.equal(await page.locator('[data-testid=topic-graphite]').count(), 0,
      'no graphs without --graphite-url')
    await shot('topic-no-producers')
    console.log('ok - a topic no nsqd produces shows as empty')

    // Tombstone the only producer of e2e_work through the topic page.
    await page.goto(`${base}/topics/e2e_work`)
    acceptNextConfirm(/tombstone topic e2e_work on node 127\.0\.0\.1:/)
    await page.locator(`[data-testid=topic-nodes] tr[data-node="${nodeName}"] button`, {hasText: 'Tombstone'}).click()
    await eventually('e2e_work deleted on the tombstoned nsqd', async () =>
      (await http(nsqd[0].http, 'GET', '/stats?format=json&topic=e2e_work')).json().topics === null)
    await eventually('lookupd no longer lists a producer of e2e_work', async () => {
      const r = await http(lookupd.http, 'GET', '/lookup?topic=e2e_work')
      return r.status === 404 || r.json().producers.length === 0
    })
    console.log('ok - tombstoning a producer through the UI removed it')

    // An nsqd that cannot be reached is shown on the page, not a blank screen.
    const deadPort = await new Promise((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = s.address().port
        s.close(() => resolve(p))
      })
    })
    await http(nsqd[0].http, 'POST', '/pub?topic=e2e_live', 'still here')
    const partial = await startServer('nsqadmin (partial)', process.env.NSQADMIN_BIN, [
      '--http-address=127.0.0.1:0', `--nsqd-http-address=127.0.0.1:${nsqd[0].http}`,
      `--nsqd-http-address=127.0.0.1:${deadPort}`], ['HTTP'])
    await page.goto(`http://127.0.0.1:${partial.http}/topics`)
    await page.locator('[data-testid=page-warning]', {hasText: `127.0.0.1:${deadPort}`}).waitFor()
    await page.locator('[data-testid=topics-table] a', {hasText: 'e2e_live'}).waitFor()
    await shot('unreachable-nsqd-warning')
    const down = await startServer('nsqadmin (down)', process.env.NSQADMIN_BIN, [
      '--http-address=127.0.0.1:0', `--nsqd-http-address=127.0.0.1:${deadPort}`], ['HTTP'])
    await page.goto(`http://127.0.0.1:${down.http}/topics`)
    await page.locator('[data-testid=page-error]', {hasText: 'UPSTREAM_ERROR: Failed to query any nsqd'}).waitFor()
    await page.locator('[data-testid=page-failed]').waitFor()
    await shot('unreachable-nsqd-error')
    console.log('ok - an unreachable nsqd shows as a warning / an error on the page')

    // --graphite-url: a stand-in graphite answering the render API (JSON for
    // the rate, a PNG for the charts) records what it is asked.
    const graphiteAsked = []
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
    const graphite = nodeHttp.createServer((req, res) => {
      const u = new URL(req.url, 'http://graphite')
      graphiteAsked.push(u)
      if (u.searchParams.get('format') === 'json') {
        res.writeHead(200, {'Content-Type': 'application/json'})
        res.end(JSON.stringify([{target: u.searchParams.get('target'), datapoints: [[120, 1700000000]]}]))
      } else {
        res.writeHead(200, {'Content-Type': 'image/png'})
        res.end(png)
      }
    })
    await new Promise((resolve) => graphite.listen(0, '127.0.0.1', resolve))
    try {
      const graphiteUrl = `http://127.0.0.1:${graphite.address().port}`
      const graphed = await startServer('nsqadmin (graphite)', process.env.NSQADMIN_BIN, [
        '--http-address=127.0.0.1:0', `--nsqd-http-address=127.0.0.1:${nsqd[0].http}`,
        `--graphite-url=${graphiteUrl}`], ['HTTP'])
      await page.goto(`http://127.0.0.1:${graphed.http}/topics/e2e_live`)
      await waitText('[data-testid=topic-graphite-rate]', '2.00/s')
      // Graphite is the source then: nsqadmin keeps no history of its own.
      assert.equal(await page.locator('[data-testid=topic-history]').count(), 0)
      const noHistory = await http(graphed.http, 'GET', '/api/history/topics/e2e_live')
      assert.equal(noHistory.status, 404)
      assert.deepEqual(noHistory.json(), {message: 'HISTORY_DISABLED'})
      const srcs = await page.locator('[data-testid=topic-graphite] img').evaluateAll((imgs) => imgs.map((i) => i.src))
      assert.equal(srcs.length, 2)
      for (const src of srcs) assert.ok(src.startsWith(`${graphiteUrl}/render?`), src)
      await eventually('the browser loaded the charts from graphite', () =>
        graphiteAsked.filter((u) => u.searchParams.get('format') === null).length >= 2)
      const rateAsk = graphiteAsked.find((u) => u.searchParams.get('format') === 'json')
      assert.equal(rateAsk.searchParams.get('target'), 'sumSeries(stats.counters.nsq.*.topic.e2e_live.message_count.count)')
      assert.equal(rateAsk.searchParams.get('from'), '-120sec')
      await shot('topic-graphite')
      console.log('ok - with --graphite-url the topic page shows graphite charts and the rate')
    } finally {
      graphite.close()
    }

    // A draining nsqd (PUT /config/drain): its e2e_live message has no
    // channel to go to, so it stays up, and its node page says it drains.
    assert.equal((await http(nsqd[0].http, 'PUT', '/config/drain', '')).status, 200)
    await page.goto(`${base}/nodes/${encodeURIComponent(nodeName)}`)
    await page.locator('[data-testid=node-draining]').waitFor()
    await shot('node-draining')
    console.log('ok - the node page shows a draining nsqd')

    assert.deepEqual(consoleErrors, [], 'no script errors in the page')
  } finally {
    await browser.close()
  }
  console.log(`screenshots in ${SCREENSHOT_DIR}`)
}

run('nsqadmin e2e', main, 150000)

'use strict'
// nsqadmin's own history charts and sortable tables in headless chromium
// (see e2e.test.js for the setup). A live cluster (nsqlookupd, one nsqd,
// nsqadmin sampling every second) under load in two phases, ~100 msg/s
// then ~400 msg/s, with a consumer; the topic page's SVG chart must show
// the two levels, drawn where /api/history says. Then the channel and node
// charts, the hover readout, and sorting a table by its headers.
//
// Env as e2e.test.js. On failure a screenshot goes to
// SCREENSHOT_DIR/history-failure.png.

const {
  SCREENSHOT_DIR, startServer, http, eventually, openPage, tempDir, run, consume,
} = require('./harness.js')
const assert = require('node:assert/strict')

const TOPIC = 'hist_load'
const TICK_MS = 100

// Publishes `perTick` messages every TICK_MS until stopped: a steady rate
// of perTick * 10 messages/s.
function publisher(port, topic, perTick) {
  const body = Array.from({length: perTick}, (_, i) => `m${i}`).join('\n')
  let stopped = false
  let inFlight = 0
  const timer = setInterval(() => {
    if (stopped || inFlight > 2) return  // never pile up requests on a slow machine
    inFlight++
    http(port, 'POST', `/mpub?topic=${topic}`, body).finally(() => { inFlight-- })
  }, TICK_MS)
  return () => {
    stopped = true
    clearInterval(timer)
  }
}

// The values a chart's polyline draws, read back from its pixels with the
// scale the <svg> declares (data-y-min/max, data-plot-top/bottom).
function drawnValues() {
  const svg = document.querySelector('[data-testid=topic-history] svg.chart.big')
  if (!svg) return null
  const yMin = Number(svg.dataset.yMin)
  const yMax = Number(svg.dataset.yMax)
  const top = Number(svg.dataset.plotTop)
  const bottom = Number(svg.dataset.plotBottom)
  const out = []
  for (const line of svg.querySelectorAll('polyline.line')) {
    for (const p of line.getAttribute('points').trim().split(/\s+/)) {
      const [x, y] = p.split(',').map(Number)
      out.push({x, v: yMin + ((bottom - y) / (bottom - top)) * (yMax - yMin)})
    }
  }
  return {series: svg.dataset.series, count: Number(svg.dataset.count), yMax, points: out}
}

const near = (v, want, tolerance) => Math.abs(v - want) <= want * tolerance

async function main() {
  const lookupd = await startServer('nsqlookupd', process.env.NSQLOOKUPD_BIN,
    ['--tcp-address=127.0.0.1:0', '--http-address=127.0.0.1:0'], ['TCP', 'HTTP'])
  const nsqd = await startServer('nsqd', process.env.NSQD_BIN, [
    '--tcp-address=127.0.0.1:0', '--http-address=127.0.0.1:0', `--data-path=${tempDir('nsqadmin-hist-')}`,
    '--broadcast-address=127.0.0.1', `--lookupd-tcp-address=127.0.0.1:${lookupd.tcp}`,
  ], ['TCP', 'HTTP'])
  const admin = await startServer('nsqadmin', process.env.NSQADMIN_BIN, [
    '--http-address=127.0.0.1:0', `--lookupd-http-address=127.0.0.1:${lookupd.http}`,
    '--history-interval=1s', '--history-duration=10m', '--base-path=/admin',
  ], ['HTTP'])
  const base = `http://127.0.0.1:${admin.http}/admin`
  const node = `127.0.0.1:${nsqd.http}`

  await http(nsqd.http, 'POST', `/topic/create?topic=${TOPIC}`)
  await http(nsqd.http, 'POST', `/channel/create?topic=${TOPIC}&channel=work`)
  const consumer = consume(nsqd.tcp, TOPIC, 'work')
  await eventually('lookupd knows the topic', async () =>
    (await http(lookupd.http, 'GET', `/lookup?topic=${TOPIC}`)).json().producers?.length === 1)

  const {browser, page, errors, shot} = await openPage()
  let stop = () => {}
  try {
    // The API's errors are JSON with a status.
    const bad = await http(admin.http, 'GET', '/admin/api/history/topics/no_such_topic')
    assert.equal(bad.status, 404)
    assert.deepEqual(bad.json(), {message: 'TOPIC_NOT_FOUND'})
    const badPath = await http(admin.http, 'GET', '/admin/api/history/bogus')
    assert.equal(badPath.status, 404)
    assert.deepEqual(badPath.json(), {message: 'NOT_FOUND'})
    console.log('ok - /api/history answers JSON errors')

    await page.goto(`${base}/topics/${TOPIC}`)
    await page.locator('[data-testid=topic-history]').waitFor()

    // Phase 1: ~100 msg/s until the chart holds 4 points near it.
    stop = publisher(nsqd.http, TOPIC, 10)
    await eventually('the chart shows ~100 msg/s', async () => {
      const d = await page.evaluate(drawnValues)
      return d && d.points.filter((p) => near(p.v, 100, 0.3)).length >= 4
    }, 30000)
    stop()
    // Phase 2: ~400 msg/s.
    stop = publisher(nsqd.http, TOPIC, 40)
    await eventually('the chart shows ~400 msg/s', async () => {
      const d = await page.evaluate(drawnValues)
      return d && d.points.filter((p) => near(p.v, 400, 0.3)).length >= 4
    }, 30000)
    stop()
    await shot('history-topic')

    const drawn = await page.evaluate(drawnValues)
    assert.equal(drawn.series, 'rate')
    const low = drawn.points.filter((p) => near(p.v, 100, 0.3))
    const high = drawn.points.filter((p) => near(p.v, 400, 0.3))
    assert.ok(low.length >= 4 && high.length >= 4, JSON.stringify(drawn.points))
    // Two levels, the lower first: time runs left to right.
    assert.ok(Math.max(...low.map((p) => p.x)) < Math.min(...high.map((p) => p.x)),
      `the ~100/s points come before the ~400/s ones: ${JSON.stringify(drawn.points)}`)
    // The line is drawn where the API's values are (within a pixel's worth).
    const api = (await http(admin.http, 'GET', `/admin/api/history/topics/${TOPIC}`)).json()
    const rates = api.series.rate.filter((v) => v !== null)
    const pixel = drawn.yMax / 100  // points are written to 0.1 px of a ~170 px plot
    for (const {v} of drawn.points) {
      assert.ok(rates.some((r) => Math.abs(r - v) <= pixel),
        `drawn ${v} is one of the API's rates ${JSON.stringify(rates)}`)
    }
    console.log(`ok - the topic chart shows two levels (${low.length} points ~100/s, then ${high.length} ~400/s)`)

    // Sparklines for the other series, and the value under the pointer.
    const sparks = await page.locator('[data-testid=topic-history] .history-spark svg').evaluateAll(
      (svgs) => svgs.map((s) => s.dataset.series))
    for (const want of ['rate', 'depth', 'in_flight', 'requeue_rate', 'timeout_rate']) {
      assert.ok(sparks.includes(want), `a ${want} sparkline in ${sparks}`)
    }
    const big = page.locator('[data-testid=topic-history] svg.chart.big')
    const box = await big.boundingBox()
    const lowX = low[Math.floor(low.length / 2)].x
    // viewBox 760 wide, scaled to the element's width.
    await page.mouse.move(box.x + (lowX / 760) * box.width, box.y + box.height / 2)
    await page.waitForFunction(() => {
      const m = document.querySelector('[data-testid=topic-history] svg.chart.big .marker')
      return m && m.getAttribute('visibility') === 'visible'
    })
    const readout = await page.locator('[data-testid=topic-history-readout]').innerText()
    const shown = Number(readout.replace(/[,/s]/g, ''))
    assert.ok(near(shown, 100, 0.3), `hovering a ~100/s point reads ${readout}`)
    await shot('history-topic-hover')
    await page.mouse.move(0, 0)
    console.log(`ok - hovering the chart reads the point's value (${readout})`)

    // The channel page and the node page draw theirs.
    await page.goto(`${base}/topics/${TOPIC}/work`)
    await page.locator('[data-testid=channel-history] svg.chart.big[data-series=rate]').waitFor()
    assert.ok(await page.locator('[data-testid=channel-history] .history-spark svg[data-series=clients]').count() === 1)
    await shot('history-channel')
    await page.goto(`${base}/nodes/${encodeURIComponent(node)}`)
    await page.locator('[data-testid=node-history] svg.chart.big[data-series=clients]').waitFor()
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=node-history-readout]')?.textContent === '1')
    await shot('history-node')
    console.log('ok - the channel and node pages chart their history (node: 1 connection)')

    // Sorting: channels with depths 0, 300 and 1,200 (as text "1,200" sorts
    // before "300"; as numbers after).
    await http(nsqd.http, 'POST', '/topic/create?topic=sort_me')
    await http(nsqd.http, 'POST', '/channel/create?topic=sort_me&channel=early')
    await http(nsqd.http, 'POST', '/mpub?topic=sort_me', Array(900).fill('x').join('\n'))
    await http(nsqd.http, 'POST', '/channel/create?topic=sort_me&channel=mid')
    await http(nsqd.http, 'POST', '/mpub?topic=sort_me', Array(300).fill('x').join('\n'))
    await http(nsqd.http, 'POST', '/channel/create?topic=sort_me&channel=late')
    await page.goto(`${base}/topics/sort_me`)
    const order = () => page.locator('[data-testid=topic-channels] tbody tr').evaluateAll(
      (rows) => rows.map((r) => r.dataset.channel))
    await eventually('three channels listed', async () => (await order()).length === 3)
    assert.deepEqual(await order(), ['early', 'late', 'mid'], 'by name, as the server lists them')
    const depthHeader = page.locator('[data-testid=topic-channels] th', {hasText: /^Depth$/})
    await depthHeader.click()
    assert.deepEqual(await order(), ['late', 'mid', 'early'], 'depth ascending: 0, 300, 1,200')
    assert.equal(await depthHeader.getAttribute('aria-sort'), 'ascending')
    await depthHeader.click()
    assert.deepEqual(await order(), ['early', 'mid', 'late'], 'again: descending')
    // The order survives the page's refresh (it rebuilds the table).
    const refreshes = Number(await page.locator('#refresh-state').getAttribute('data-count'))
    await page.waitForFunction((n) => Number(document.querySelector('#refresh-state').dataset.count) > n,
      refreshes, {timeout: 10000})
    assert.deepEqual(await order(), ['early', 'mid', 'late'], 'still descending after a refresh')
    await page.locator('[data-testid=topic-channels] th', {hasText: /^Channel$/}).click()
    assert.deepEqual(await order(), ['early', 'late', 'mid'], 'by name')
    // Numbers sit under their headers: both right-aligned, same right edge.
    const align = await page.evaluate(() => {
      const t = document.querySelector('[data-testid=topic-channels]')
      const th = [...t.tHead.rows[0].cells].find((c) => c.textContent === 'Depth')
      const td = t.tBodies[0].rows[0].cells[th.cellIndex]
      const edge = (el) => {
        const r = document.createRange()
        r.selectNodeContents(el)
        return r.getBoundingClientRect().right
      }
      return {th: getComputedStyle(th).textAlign, td: getComputedStyle(td).textAlign,
        thRight: edge(th), tdRight: edge(td)}
    })
    assert.equal(align.th, 'right')
    assert.equal(align.td, 'right')
    assert.ok(Math.abs(align.thRight - align.tdRight) < 2, JSON.stringify(align))
    await shot('sorted-channels')
    console.log('ok - tables sort by a clicked header (numbers as numbers), reversed by a second click')

    assert.deepEqual(errors, [], 'no script errors in the page')
  } catch (err) {
    stop()
    await shot('history-failure').catch(() => {})
    console.error(`screenshot: ${SCREENSHOT_DIR}/history-failure.png`)
    throw err
  } finally {
    consumer.close()
    await browser.close()
  }
}

run('nsqadmin history', main, 110000)

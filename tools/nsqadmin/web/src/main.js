// nsqadmin's single-page app: routes (Go nsqadmin's URLs under the base
// path), a refresh every few seconds, and the alert area.
import {h} from './dom.js'
import {config} from './config.js'
import {url} from './api.js'
import {setPageAlerts, clearActionAlert} from './alerts.js'
import {topicsPage, topicPage} from './pages_topics.js'
import {channelPage} from './pages_channel.js'
import {nodesPage, nodePage} from './pages_nodes.js'
import {lookupPage} from './pages_lookup.js'
import {counterPage} from './pages_counter.js'

const REFRESH_MS = 3000

// Path (without the base path) -> page and its parameters.
function route(path) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  if (parts.length === 0 || (parts[0] === 'topics' && parts.length === 1)) return [topicsPage, {}]
  if (parts[0] === 'topics' && parts.length === 2) return [topicPage, {topic: parts[1]}]
  if (parts[0] === 'topics' && parts.length === 3) {
    return [channelPage, {topic: parts[1], channel: parts[2]}]
  }
  if (parts[0] === 'nodes' && parts.length === 1) return [nodesPage, {}]
  if (parts[0] === 'nodes' && parts.length === 2) return [nodePage, {node: parts[1]}]
  if (parts[0] === 'lookup') return [lookupPage, {}]
  if (parts[0] === 'counter') return [counterPage, {}]
  return [null, {}]
}

function currentPath() {
  let p = window.location.pathname
  const base = config.basePath
  if (p.startsWith(base)) p = p.slice(base.length)
  else if (p + '/' === base) p = ''
  return '/' + p
}

let generation = 0  // bumps at each navigation: late answers for an old page are dropped
let loading = false
let lastPath = null

const ctx = {
  link(path, text) {
    return h('a', {href: url(path), 'data-link': true}, text)
  },
  navigate(path) {
    window.history.pushState(null, '', url(path))
    show()
  },
  refresh() {
    load(generation)
  },
}

async function load(gen) {
  const path = currentPath()
  const [page, params] = route(path)
  const content = document.getElementById('content')
  if (!page) {
    setPageAlerts([])
    content.replaceChildren(h('section', null, h('h2', null, 'Not found'),
      h('p', null, 'No such page: ', path)))
    return
  }
  document.title = `nsqadmin - ${page.title(params)}`
  for (const a of document.querySelectorAll('nav.top a[data-nav]')) {
    a.classList.toggle('active', a.dataset.nav === page.nav)
  }
  loading = true
  try {
    const data = await page.load(params)
    if (gen !== generation) return
    setPageAlerts(data.message ? [{kind: 'warning', text: data.message}] : [])
    content.replaceChildren(page.render(data, ctx, params))
  } catch (err) {
    if (gen !== generation) return
    // Keep the page useful: say what failed, where the data would be.
    setPageAlerts([{kind: 'error', text: err.message}])
    content.replaceChildren(h('section', {class: 'failed', 'data-testid': 'page-failed'},
      h('h2', null, page.title(params)),
      h('p', null, 'nsqadmin could not load this page: ', h('code', null, err.message)),
      h('p', {class: 'note'}, `Retrying every ${REFRESH_MS / 1000} seconds.`)))
  } finally {
    if (gen === generation) {
      loading = false
      const state = document.getElementById('refresh-state')
      if (state) {
        state.textContent = `updated ${new Date().toLocaleTimeString('en-GB')}`
        state.dataset.count = String(Number(state.dataset.count || 0) + 1)
      }
    }
  }
}

function show() {
  generation++
  loading = false
  const path = currentPath()
  if (path !== lastPath) clearActionAlert()
  lastPath = path
  load(generation)
}

document.addEventListener('click', (ev) => {
  const a = ev.target.closest && ev.target.closest('a[data-link]')
  if (!a || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.button !== 0) return
  ev.preventDefault()
  window.history.pushState(null, '', a.getAttribute('href'))
  show()
})
window.addEventListener('popstate', show)

setInterval(() => {
  // A page still loading (slow upstream) is not asked again on top.
  if (!loading && !document.hidden) load(generation)
}, REFRESH_MS)

show()

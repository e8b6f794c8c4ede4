// The settings nsqadmin writes into the page (index.html's JSON script).
function read() {
  const el = document.getElementById('nsqadmin-config')
  let c = {}
  try {
    c = JSON.parse(el ? el.textContent : '{}')
  } catch (_err) {
    c = {}
  }
  let base = c.base_path || '/'
  if (!base.endsWith('/')) base += '/'
  return {
    version: c.version || '',
    basePath: base,
    graphEnabled: !!c.graph_enabled,
    historyEnabled: !!c.history_enabled,
    historyIntervalMs: c.history_interval_ms || 0,
    graphiteUrl: c.graphite_url || '',
    statsdPrefix: c.statsd_prefix || '',
    statsdCounterFormat: c.statsd_counter_format || '',
    proxyGraphite: !!c.proxy_graphite,
    statsdInterval: c.statsd_interval || 60,
    lookupd: c.nsqlookupd || [],
    nsqd: c.nsqd || [],
    isAdmin: c.is_admin !== false,
  }
}

export const config = read()

// Message rates from successive refreshes: nsqd only reports counts, so the
// rate is the count's change over the time between two samples.
const samples = new Map()

// Records count for key and returns messages per second since the previous
// sample (null on the first one, or when the count went back, e.g. after an
// nsqd restart).
export function rate(key, count, now = Date.now()) {
  const prev = samples.get(key)
  samples.set(key, {count, at: now})
  if (!prev || now <= prev.at || count < prev.count) return null
  return ((count - prev.count) * 1000) / (now - prev.at)
}

export function rateText(r) {
  return r === null ? '–' : `${r.toFixed(r < 10 ? 1 : 0)}/s`
}

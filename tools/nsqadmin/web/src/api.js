// nsqadmin's JSON API, relative to the base path. Every answer is
// {..., "message": ""}; a non-2xx answer becomes an ApiError carrying the
// server's message (e.g. "UPSTREAM_ERROR: Failed to query any nsqd: ...").
import {config} from './config.js'

export class ApiError extends Error {
  constructor(status, message) {
    super(message)
    this.status = status
  }
}

export function url(path) {
  return config.basePath + path.replace(/^\//, '')
}

export async function request(method, path, body) {
  const init = {method, headers: {Accept: 'application/json'}}
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  let resp
  try {
    resp = await fetch(url(path), init)
  } catch (err) {
    throw new ApiError(0, `nsqadmin is unreachable (${err.message})`)
  }
  let data = null
  try {
    data = await resp.json()
  } catch (_err) {
    data = null
  }
  if (!resp.ok) {
    throw new ApiError(resp.status, (data && data.message) || `HTTP ${resp.status}`)
  }
  return data || {}
}

export const get = (path) => request('GET', path)
export const post = (path, body) => request('POST', path, body)
export const del = (path, body) => request('DELETE', path, body)

export const enc = encodeURIComponent

// Go's answer for a topic no nsqd produces (zero producers counts as "failed
// to query any nsqd", with no error after the colon): the pages show it as
// an empty topic rather than as a failure.
export function noProducers(err) {
  return err instanceof ApiError && err.status === 502 &&
    err.message === 'UPSTREAM_ERROR: Failed to query any nsqd: '
}

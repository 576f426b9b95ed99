// Package dashboard is the collector's web dashboard: the page itself
// (plain HTML, CSS and JavaScript embedded in the binary, no build step)
// and the summaries of the pool's ads its JSON endpoints answer with.
//
//	browser ── GET /dashboard/ (static, public) ──────────▶ Files
//	        ── GET /v1/dashboard/... (READ token) ──▶ collector
//	                                                     │  ads from the store,
//	                                                     │  queues from schedds,
//	                                                     ▼  priorities from the negotiator
//	              Overview, Machines, Machine, SitaLoads, Sampler (history)
//
// The functions here are pure: they take ads and answer the values the
// page draws, so they are tested without a pool. Sampler keeps the
// bounded history of pool and machine statistics that the collector
// records every sample interval, for the utilization plots.
//
// The page is read-only. It sends the token as a bearer header: a login
// form keeps it in the browser's sessionStorage, and `kite dashboard`
// prints a URL with the token in its fragment (#token=...), which the
// browser never sends to the server, so it stays out of logs.
package dashboard

// Package api is Kite's public Go client: typed calls to a pool's daemons
// over the HTTP/JSON protocol that the daemons and the kite tools speak
// (docs/protocol.md), as Nomad publishes its api package.
//
// A Client reaches the pool's collector; from it come a Collector (ad
// queries, locating daemons), a Schedd (submit, query, history, act,
// edit) and the negotiator's user priorities. Queries stream: each ad is
// handed to a callback as it arrives, so that a query of 100 000 jobs
// never holds them all.
//
// The request and answer types are the daemons' own (aliases of the
// types of Kite's internal wire package, not copies): a field the daemons
// add is a field of this package at once. Ads are classad.Ad values of
// the public classad package.
//
// DefaultConfig finds the pool the kite tools would use ($KITE_CONFIG,
// $KITE_HOME/kite.toml, ~/.kite/kite.toml, /etc/kite/kite.toml) and the
// token they would present ($KITE_TOKEN, else the configuration's token
// file). docs/api.md is the guide.
package api

// Package openapi describes Kite's HTTP protocol as an OpenAPI 3 document:
// one Operation per endpoint of the daemons, with the wire types of its
// request and answer, from which Document generates the JSON (the
// schemas by reflection on those types, so that a field added to a wire
// type is in the document at once). Every daemon serves the document at
// PathDocument (Serve, called by daemon.Env's Mux).
//
// Check keeps the table honest: it fails for a daemon route without an
// operation or with another level (pooltest.CheckDocumented calls it in
// every daemon's tests), and the api package's tests ask the daemons of a
// running pool for every operation, failing for one no daemon serves.
package openapi

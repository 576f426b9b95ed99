// Package wire is the protocol Kite's daemons and tools speak: HTTP/1.1
// with JSON bodies under /v1/, ads in HTCondor's JSON form, every request
// carrying a bearer token (package auth), and large answers streamed as
// one JSON object per line. docs/protocol.md lists every endpoint.
//
// A Mux routes requests after checking the caller's level for the route,
// bounds request bodies, and turns errors into JSON answers with a status
// and a code; a Connector makes Clients that call daemons and give those
// errors back as *Error. Network abstracts the transport: TCP, or a
// MemNetwork in which the whole HTTP stack runs over in-memory pipes, for
// tests and the simulator.
package wire

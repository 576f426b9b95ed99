package schedd

import (
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/wire"
)

// typedJob adds a job's type statistics (package jobtypes) to its ad as
// its request carried them, so that the startd's START sees at the claim
// what the negotiator saw.
func (s *Server) typedJob(ad *classad.Ad) { s.types.Publish(ad) }

// typedRequests adds each request's job type statistics to its ad.
func (s *Server) typedRequests(ads []*classad.Ad) { s.types.Publish(ads...) }

// requestAds are the requests' ads.
func requestAds(reqs []wire.ResourceRequest) []*classad.Ad {
	out := make([]*classad.Ad, len(reqs))
	for i := range reqs {
		out[i] = reqs[i].Ad
	}
	return out
}

package config

// MaxExpressionDepth is the deepest nesting any expression may have
// (the ClassAd parser's bound, HTCondor's MAX_PARSER_DEPTH):
// max_expression_depth may only lower it.
const MaxExpressionDepth = 500

// checkExprLimits checks a section's bounds on the expressions requests
// carry (max_expression_bytes, _tokens and _depth).
func (c *Config) checkExprLimits(section string, bytes, tokens, depth int) []error {
	var errs []error
	if bytes < 1024 {
		errs = append(errs, c.errorAt(section+".max_expression_bytes", "must be at least 1024"))
	}
	if tokens < 100 {
		errs = append(errs, c.errorAt(section+".max_expression_tokens", "must be at least 100"))
	}
	if depth < 1 || depth > MaxExpressionDepth {
		errs = append(errs, c.errorAt(section+".max_expression_depth", "must be between 1 and %d", MaxExpressionDepth))
	}
	return errs
}

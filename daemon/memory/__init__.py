"""Memory writes: reading claims from facts, reconciling them, and the trust policy."""

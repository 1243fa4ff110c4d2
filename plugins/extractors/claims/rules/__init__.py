"""The reader's rules, one module per topic, each a mixin over the clause being read."""

"""Frozen code that left the ``sanma`` package: the classic master and the expected-value
master's A/B variants (see README.md).  Not imported by ``sanma``; not maintained."""

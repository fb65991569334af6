"""Helpers the tests share (not tests): the CLI, the Go peer, golden records, strategies, ..."""

"""Verification: what to run (`target`), running it safely (`process`), judging (`check`)."""

"""Runs spread over a Ray cluster (`codur challenges run --ray`, `bench/humaneval.py
--ray`): connecting (`connect`), what a run reserves and where its model is served
(`placement`), and jobs run as Ray tasks with retries counted, deadlines and cancelling
(`jobs`). Ray is the optional extra `codur[ray]`; nothing here imports it before it is
needed."""

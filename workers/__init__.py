"""RQ side of the pipeline: job functions (`jobs`), the steps they run (`resolution`, `upkeep`), scheduling
under deterministic job ids (`scheduling`), outgoing text (`messages`) and the worker entry (`python -m workers`)."""

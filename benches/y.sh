#!/usr/bin/env bash
# Times rules/y.rules on its small and large sets: see benches/connection.sh.
# Usage: benches/y.sh [RUNS]
exec "$(dirname "$0")/connection.sh" y "$@"

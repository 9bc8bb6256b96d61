#!/bin/sh
# The Claude Code plugin as a person installs it, with the pinned Claude Code of this folder, in a
# network namespace that has only the loopback interface (nothing can leave the machine): the
# plugin folder of `cargo xtask dist` and the repository's marketplace pass `claude plugin
# validate --strict`; the marketplace is added and the plugin installed into an empty home; and
# `claude mcp list` starts the plugin's server (`npx -y ask-user@VERSION mcp`, installed from
# the static registry of registry.py on 127.0.0.1) and checks that it answers.
#
# Usage: unshare -rn sh claude_plugin.sh REPOSITORY PACKAGES WORK
#   REPOSITORY: the repository root (its .claude-plugin/marketplace.json lists the plugin)
#   PACKAGES:   target/packages, as `cargo xtask dist` wrote it
#   WORK:       an empty folder for the home, the npm cache and the registry's log
set -eu
repo=$1 packages=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
claude=$here/node_modules/.bin/claude

ip link set lo up
mkdir -p "$work/home" "$work/cache"
: > "$work/npmrc"
: > "$work/global-npmrc"
REGISTRY_LIFETIME=120 python3 "$here/registry.py" "$packages" "$work/requests.log" > "$work/port" &
registry=$!
trap 'kill $registry' EXIT
while [ ! -s "$work/port" ]; do sleep 0.1; done

export HOME="$work/home"
export npm_config_registry="http://127.0.0.1:$(head -n 1 "$work/port")/"
export npm_config_cache="$work/cache"
export npm_config_userconfig="$work/npmrc"
export npm_config_globalconfig="$work/global-npmrc"
export npm_config_update_notifier=false
# Claude Code sends nothing of its own (telemetry, error reports, update checks).
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1
export DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1

timeout 60 "$claude" plugin validate --strict "$packages/claude-plugin"
timeout 60 "$claude" plugin validate --strict "$repo"
timeout 60 "$claude" plugin marketplace add "$repo"
timeout 60 "$claude" plugin install ask-user@ask-user
timeout 60 "$claude" mcp list

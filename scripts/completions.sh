#!/bin/sh
# Writes lantern's shell completions to completions/ (for the release
# archives); the binary generates them: lantern completion SHELL.
set -e
rm -rf completions
mkdir completions
for shell in bash zsh fish; do
	go run . completion "$shell" >"completions/lantern.$shell"
done

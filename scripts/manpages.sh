#!/bin/sh
# Writes lantern's man page to manpages/ (for the release archives); the
# binary generates it: lantern man.
set -e
rm -rf manpages
mkdir manpages
go run . man | gzip -c -9 >manpages/lantern.1.gz

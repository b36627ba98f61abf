#!/bin/sh
# Usage: deploy/pin-images.sh      (on a machine with docker and network access; from the repository root)
#
# Pins every base image of deploy/ by digest: each `image: NAME:TAG` of the compose files and `FROM NAME:TAG` of
# the Dockerfile becomes NAME:TAG@sha256:<digest of the multi-platform index> as the registry serves it now (the
# tag stays for people to read; the digest is what docker pulls). Run it again to move to a new release on purpose
# (change the tag first), and commit the result. Not run in CI: the test machines have no registry access, so the
# files are pinned by tag until an operator runs this (docs/operations.md, step 1).
set -eu
files="deploy/Dockerfile deploy/docker-compose.yml deploy/docker-compose.shards.yml"
images=$(sed -n -e 's/^FROM \([^ @]*\).*/\1/p' -e 's/^ *image: \([^ @]*\).*/\1/p' $files | sort -u)
for image in $images; do
    digest=$(docker buildx imagetools inspect "$image" --format '{{json .Manifest.Digest}}' | tr -d '"')
    case "$digest" in
    sha256:*) ;;
    *) echo "pin-images.sh: no digest for $image" >&2; exit 1 ;;
    esac
    echo "$image -> $digest"
    for f in $files; do
        sed -i -e "s|^FROM $image\(@sha256:[0-9a-f]*\)\{0,1\}\( \|\$\)|FROM $image@$digest\2|" \
            -e "s|^\( *image: \)$image\(@sha256:[0-9a-f]*\)\{0,1\}\$|\1$image@$digest|" "$f"
    done
done

#!/usr/bin/env bash
# Writes the .bin files of this corpus (the .json and .expected.json files
# are written by hand: see README.md). Needs python3, chafa and img2sixel
# (Debian: chafa, libsixel-bin). Run from anywhere; rewrites cases/*.bin.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cases=$here/cases
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/picture.py" > "$tmp/picture.png"

# What the pty's line discipline (ONLCR) makes of a program's LF: CR LF.
onlcr() {
    python3 -c 'import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().replace(b"\n", b"\r\n"))'
}

# An image between text: a line before, "ab", the program's output (chafa
# ends its kitty and iTerm2 output with a newline, not its sixel output),
# then "after" (after a CR LF for sixel, whose cursor stays on the image).
image_case() {
    local name=$1 sep=$2
    shift 2
    {
        printf 'text before\r\nab'
        "$@" "$tmp/picture.png" | onlcr
        printf '%b' "$sep"
        printf 'after'
    } > "$cases/$name.bin"
}
image_case image-chafa-sixel '\r\n' chafa -f sixels --size 2x2
image_case image-img2sixel '\r\n' img2sixel
image_case image-chafa-kitty '' chafa -f kitty --size 2x2
image_case image-chafa-iterm '' chafa -f iterm --size 2x2

# Where kitty leaves the cursor, which chafa's newline hides: a one-pixel
# RGB image placed on 2x2 cells, then "X"; on the next line "cd", one placed
# on 3x1 cells with C=1 (the cursor does not move), then "Y".
{
    printf 'ab\e_Ga=T,f=24,s=1,v=1,c=2,r=2;AAAA\e\\X\r\n'
    printf 'cd\e_Ga=T,f=24,s=1,v=1,c=3,r=1,C=1;AAAA\e\\Y'
} > "$cases/image-kitty-cursor.bin"

# Grapheme clusters: each line is first filled with ten dots, then the
# cluster and a "|" overwrite it, so the dots left show the columns taken.
graphemes() {
    local cluster
    for cluster in \
        '\U1F468\u200D\U1F469\u200D\U1F467' \
        '\U1F1EB\U1F1F7' \
        '\U1F44D\U1F3FD' \
        '\u2764\uFE0F' \
        '\u231A\uFE0E'; do
        printf '..........\r'
        printf "$cluster"
        printf '|\r\n'
    done
    printf 'end'
}
{ printf '\e[?2027h'; graphemes; } > "$cases/grapheme-mode-2027.bin"
graphemes > "$cases/grapheme-no-mode.bin"

# The kitty keyboard protocol and modifyOtherKeys between text. CSI s saves
# the cursor at the home position first, so a `CSI ... u` taken for SCORC
# (restore cursor) would send the text back there; `CSI > 4 ; 2 m` taken
# for SGR would underline what follows.
{
    printf '\e[sone '
    printf '\e[>1u'
    printf 'two '
    printf '\e[=5;1u'
    printf '\e[?u'
    printf 'three\r\n'
    printf '\e[>4;2m'
    printf '\e[?4m'
    printf 'four '
    printf '\e[?1049h\e[>8ualt\e[?u\e[<u\e[?1049l'
    printf '\e[<u'
    printf '\e[>4m'
    printf 'five'
} > "$cases/keyboard-flags.bin"

#!/bin/sh
set -eu
pdftotext "$1" -

#!/bin/bash
env="${1:-staging}"
while read -r key; do echo "$key"; done < keys.txt
echo "rotating $env"

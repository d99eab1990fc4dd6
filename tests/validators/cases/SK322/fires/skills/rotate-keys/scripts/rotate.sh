#!/bin/bash
read -p "Which environment? " env
echo "rotating $env"

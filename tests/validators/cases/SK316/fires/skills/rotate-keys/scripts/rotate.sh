#!/bin/sh
echo rotated

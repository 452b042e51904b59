#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/moto/server.py (moto with its DynamoDB and server extras, which
# bring Flask and werkzeug, and boto3, at versions known to work) unless python3 imports them already
# (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "moto, moto.server, moto.dynamodb, boto3, flask, flask_cors" \
    "moto[dynamodb,server]==5.2.1" boto3==1.43.11

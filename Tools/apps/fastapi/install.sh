#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/fastapi/server.py (FastAPI, fastapi-pagination, uvicorn, and
# SQLAlchemy with sqlakeyset for fastapi-pagination's SQLAlchemy paging and its cursors, at versions known
# to work) unless python3 imports them already (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "fastapi, fastapi_pagination, uvicorn, sqlalchemy, sqlakeyset" \
    fastapi==0.165.0 fastapi-pagination==0.16.1 uvicorn==0.54.0 sqlalchemy==2.1.9 sqlakeyset==2.0.1787969905

"""A small Django REST framework app behind django-oauth-toolkit's OAuth2 server: see server.py."""

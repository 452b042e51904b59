from django.conf import settings
from rest_framework import routers

from drf import api

router = routers.DefaultRouter()
router.register("limitoffset", api.LimitOffsetNotes, basename="limitoffset")
router.register("pagenumber", api.PageNumberNotes, basename="pagenumber")
router.register("cursor", api.CursorNotes, basename="cursor")
if settings.JSON_API:
    router.register("jsonapi", api.JSONAPINotes, basename="jsonapi")

urlpatterns = router.urls

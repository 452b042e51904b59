"""The three frameworks' list endpoints, each with its stock pagination."""

from typing import List

from ninja import NinjaAPI, Schema
from ninja.pagination import paginate
from tastypie.api import Api
from tastypie.resources import ModelResource
from wagtail.api.v2.router import WagtailAPIRouter
from wagtail.api.v2.views import PagesAPIViewSet

from django_apis.models import Note

# django-ninja: `@paginate` with no argument takes NINJA_PAGINATION_CLASS, LimitOffsetPagination.

ninja_api = NinjaAPI(title="Notes", urls_namespace="ninja")


class NoteOut(Schema):
    id: int
    title: str
    body: str


@ninja_api.get("/notes", response=List[NoteOut])
@paginate
def list_notes(request):
    return Note.objects.order_by("id")


# django-tastypie: a ModelResource, its Paginator (`limit`, `offset`, `meta.next`), read-only.


class NoteResource(ModelResource):
    class Meta:
        queryset = Note.objects.order_by("id")
        resource_name = "note"
        list_allowed_methods = ["get"]
        detail_allowed_methods = ["get"]


tastypie_api = Api(api_name="v1")
tastypie_api.register(NoteResource())

# Wagtail API v2: the pages endpoint, as Wagtail's documentation sets it up.

wagtail_api = WagtailAPIRouter("wagtailapi")
wagtail_api.register_endpoint("pages", PagesAPIViewSet)

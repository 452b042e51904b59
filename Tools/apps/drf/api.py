"""The serializers, paginators and views: DRF's stock classes, subclassed only to set sizes."""

from django.conf import settings
from rest_framework import pagination, serializers, viewsets

from drf.models import Note


class NoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = Note
        fields = ["id", "title", "body"]


class LimitOffset(pagination.LimitOffsetPagination):
    default_limit = 100
    max_limit = 1000


class PageNumber(pagination.PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


class Cursor(pagination.CursorPagination):
    page_size = 100
    ordering = "id"


class LimitOffsetNotes(viewsets.ReadOnlyModelViewSet):
    queryset = Note.objects.order_by("id")
    serializer_class = NoteSerializer
    pagination_class = LimitOffset


class PageNumberNotes(LimitOffsetNotes):
    pagination_class = PageNumber


class CursorNotes(LimitOffsetNotes):
    queryset = Note.objects.all()
    pagination_class = Cursor


if settings.JSON_API:
    from rest_framework import parsers
    from rest_framework_json_api import filters as json_api_filters
    from rest_framework_json_api import metadata as json_api_metadata
    from rest_framework_json_api import pagination as json_api_pagination
    from rest_framework_json_api import parsers as json_api_parsers
    from rest_framework_json_api import renderers as json_api_renderers
    from rest_framework_json_api import serializers as json_api_serializers
    from rest_framework_json_api import views as json_api_views

    class JSONAPINoteSerializer(json_api_serializers.ModelSerializer):
        class Meta:
            model = Note
            fields = ["id", "title", "body"]

    class JSONAPIPageNumber(json_api_pagination.JsonApiPageNumberPagination):
        max_page_size = 1000

    class JSONAPINotes(json_api_views.ReadOnlyModelViewSet):
        """The classes djangorestframework-jsonapi's documentation sets as REST_FRAMEWORK defaults."""

        queryset = Note.objects.order_by("id")
        serializer_class = JSONAPINoteSerializer
        resource_name = "notes"
        pagination_class = JSONAPIPageNumber
        renderer_classes = [json_api_renderers.JSONRenderer, json_api_renderers.BrowsableAPIRenderer]
        parser_classes = [json_api_parsers.JSONParser, parsers.FormParser, parsers.MultiPartParser]
        metadata_class = json_api_metadata.JSONAPIMetadata
        filter_backends = [json_api_filters.QueryParameterValidationFilter, json_api_filters.OrderingFilter]

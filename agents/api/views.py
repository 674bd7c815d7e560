"""/api/conversations/: the user's chats with the assistant, their agent steps,
and trajectories in and out (seed paper §6.1.1). Every query is scoped to the
signed-in user: another user's conversation is a 404, like a missing one."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from agents.api.serializers import AgentStepSerializer, ConversationSerializer, MessageSerializer
from agents.models import Conversation
from agents.services import ConversationBusy, post_user_message, start_chat
from agents.trajectory import TrajectoryError, export_conversation, import_trajectory

# A trajectory as JSON Schema: a list of {"from", "value"} states (seed paper §6.1.1).
STATE_SCHEMA = {
    "type": "object",
    "properties": {
        "from": {"type": "string", "enum": ["system", "user", "planner", "caller", "observation"]},
        "value": {},
    },
    "required": ["from", "value"],
}
TRAJECTORY_SCHEMA = {"type": "array", "items": STATE_SCHEMA}
TRAJECTORY = OpenApiResponse(response=TRAJECTORY_SCHEMA, description="The trajectory's states, in order.")
# How deep a trajectory's JSON may nest: a state's value is a few levels of a
# tool call's arguments; thousands of levels only exhaust the stack (a 500).
MAX_JSON_DEPTH = 32


def json_depth_exceeds(data: object, limit: int) -> bool:
    """Whether ``data`` nests lists and objects deeper than ``limit``, walked without recursion."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return False


class Busy(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The assistant is still working on this conversation."
    default_code = "conversation_busy"


class ConversationViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """The signed-in user's conversations with the assistant."""

    serializer_class = ConversationSerializer

    def get_queryset(self) -> QuerySet[Conversation]:
        if getattr(self, "swagger_fake_view", False):
            return Conversation.objects.none()
        return Conversation.objects.filter(user=self.request.user).order_by("-updated_at", "-id")

    @extend_schema(request=MessageSerializer, responses={201: ConversationSerializer})
    def create(self, request: Request, *args, **kwargs) -> Response:
        """Start a chat with the user's first message; the assistant answers over the websocket."""
        message = MessageSerializer(data=request.data)
        message.is_valid(raise_exception=True)
        conversation = start_chat(request.user, message.validated_data["text"])
        return Response(ConversationSerializer(conversation).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=MessageSerializer,
        responses={202: ConversationSerializer, 409: OpenApiResponse(description="The assistant is busy.")},
    )
    @action(detail=True, methods=["post"])
    def messages(self, request: Request, pk: str | None = None) -> Response:
        """Post the user's next message: the answer to the pending question, or a new request."""
        conversation = self.get_object()
        message = MessageSerializer(data=request.data)
        message.is_valid(raise_exception=True)
        try:
            conversation = post_user_message(conversation.pk, request.user, message.validated_data["text"])
        except ConversationBusy as exc:
            raise Busy(str(exc)) from exc
        return Response(ConversationSerializer(conversation).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={200: AgentStepSerializer(many=True)})
    # Not paginated (one conversation's steps): without this the schema promised a page object.
    @action(detail=True, methods=["get"], pagination_class=None)
    def steps(self, request: Request, pk: str | None = None) -> Response:
        """Every agent step of the conversation, in order, with latency and token counts."""
        conversation = self.get_object()
        return Response(AgentStepSerializer(conversation.steps.order_by("index"), many=True).data)

    @extend_schema(responses={200: TRAJECTORY})
    @action(detail=True, methods=["get"])
    def export(self, request: Request, pk: str | None = None) -> Response:
        """The conversation as a seed-paper trajectory."""
        return Response(export_conversation(self.get_object()))

    @extend_schema(
        request={"application/json": TRAJECTORY_SCHEMA},
        responses={
            201: ConversationSerializer,
            400: OpenApiResponse(description="Not a trajectory, or nested too deeply; errors under 'trajectory'."),
        },
    )
    @action(detail=False, methods=["post"], url_path="import")
    def import_trajectory(self, request: Request) -> Response:
        """Store a trajectory (a list of states, or {'interaction_trajectory': [...]}) as a new conversation."""
        too_deep = exceptions.ValidationError({"trajectory": [f"Nested more than {MAX_JSON_DEPTH} levels deep."]})
        try:
            data = request.data
        except RecursionError as exc:
            # The JSON parser gives up on thousands of levels with the stack.
            raise too_deep from exc
        if json_depth_exceeds(data, MAX_JSON_DEPTH):
            raise too_deep
        try:
            conversation = import_trajectory(request.user, data)
        except TrajectoryError as exc:
            raise exceptions.ValidationError({"trajectory": exc.errors}) from exc
        return Response(ConversationSerializer(conversation).data, status=status.HTTP_201_CREATED)

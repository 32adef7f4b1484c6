"""The user-agent names the lane, the cashier and the attempt, and the attempt id reads back."""

from pos_app.api.identity import Identity, attempt_in


def test_user_agent_names_station_and_attempt_and_reads_back():
    identity = Identity("store 9", "lane(1);", "ann")
    agent = identity.user_agent("a-Xy_z-12")
    assert agent.endswith("(store store_9; station lane_1__; cashier ann; attempt a-Xy_z-12)")
    assert attempt_in(agent) == "a-Xy_z-12" and attempt_in(identity.user_agent()) is None
    assert attempt_in("curl/8") is None and attempt_in(None) is None
    assert identity.made(agent) and not Identity(station="lane-2").made(agent)

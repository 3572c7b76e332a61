/// Notification rows, as the hand-offs outside the writer's own store path change them.
extension WriteTransaction {
    /// Moves a stored notification from `current` to `state` (with `reason`, or none); false when
    /// it is not stored or no longer in `current`, so that two writers of the same change cannot
    /// both make it.
    public func setState(
        ofNotification uuid: String, from current: NotificationState, to state: NotificationState, reason: String? = nil
    ) throws(StoreError) -> Bool {
        try execute(
            "UPDATE notifications SET state = ?, state_reason = ? WHERE notification_uuid = ? AND state = ?",
            [.text(state.rawValue), SQLValue(reason), .text(uuid), .text(current.rawValue)]) == 1
    }

    /// Moves a held notification to another app (the one whose configuration accepts it); false
    /// when it is not stored or no longer held.
    public func moveHeldNotification(_ uuid: String, toApp appId: String) throws(StoreError) -> Bool {
        try execute(
            "UPDATE notifications SET app_id = ? WHERE notification_uuid = ? AND state = 'held'", [.text(appId), .text(uuid)])
            == 1
    }
}

// position_relay: the anchor of `stepcompass-buslab position-load`, a minimal step -> position relay in C over
// libmosquitto, doing the arithmetic of the position service and nothing else (no validation, no error topic, no
// restore, no metrics). It is what "as fast as it gets on this broker" means for the position service.
//
// It reads MQTT_HOST, MQTT_PORT and TOPIC_PREFIX (as the services do), subscribes to PREFIX/+/steps and
// PREFIX/+/heading at QoS 1 over MQTT 5, and for each steps message (a cumulative count) adds the new steps,
// moves 0.75 m a step along the last heading every 10 steps, and publishes PREFIX/DEVICE/position, retained, QoS 1,
// with the contract's fields in sorted order. Once subscribed it publishes {"status":"online"} on
// PREFIX/services/relay/status (retained) so that the load tool knows it is ready; SIGTERM or SIGINT ends it.
//
// Build: cc -O2 -o position_relay position_relay.c -lmosquitto -lm
#include <math.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TABLE_SIZE 262144 // open addressing, a power of two well above the devices of a load run
#define STEPS_PER_UPDATE 10
#define STEP_LENGTH 0.75

struct device {
    char name[96];
    int used;
    int has_heading;
    double heading;
    long last_count;
    long steps;
    long pending;
    long updates;
    double x, y;
};

static struct device *table;
static char prefix[128] = "stepcompass";
static size_t prefix_length;
static struct mosquitto *client;
static volatile sig_atomic_t stopping;

static struct device *lookup(const char *name, size_t length) {
    if (length == 0 || length >= sizeof(table[0].name)) return NULL;
    unsigned long hash = 5381;
    for (size_t i = 0; i < length; i++) hash = hash * 33 + (unsigned char)name[i];
    for (size_t probe = 0; probe < TABLE_SIZE; probe++) {
        struct device *slot = &table[(hash + probe) & (TABLE_SIZE - 1)];
        if (!slot->used) {
            slot->used = 1;
            memcpy(slot->name, name, length);
            slot->name[length] = 0;
            return slot;
        }
        if (strncmp(slot->name, name, length) == 0 && slot->name[length] == 0) return slot;
    }
    return NULL;
}

// The text after "key": in a JSON object, or NULL.
static const char *field(const char *json, size_t length, const char *key) {
    size_t key_length = strlen(key);
    for (size_t i = 0; i + key_length + 3 <= length; i++) {
        if (json[i] == '"' && memcmp(json + i + 1, key, key_length) == 0 && json[i + 1 + key_length] == '"') {
            size_t j = i + key_length + 2;
            while (j < length && (json[j] == ' ' || json[j] == ':')) j++;
            return json + j;
        }
    }
    return NULL;
}

static void publish_position(const char *name, struct device *device, const char *timestamp, size_t timestamp_length) {
    char topic[256];
    char payload[512];
    snprintf(topic, sizeof topic, "%s/%s/position", prefix, name);
    char heading[32];
    if (device->updates > 0) snprintf(heading, sizeof heading, "%.17g", device->heading);
    else strcpy(heading, "null");
    if (timestamp_length > 64) timestamp_length = 64;  // a contract timestamp is about 24 bytes
    int length = snprintf(
        payload, sizeof payload,
        "{\"distance\":%.17g,\"heading\":%s,\"sessionSteps\":%ld,\"steps\":%ld,\"timestamp\":\"%.*s\",\"updates\":%ld,"
        "\"x\":%.17g,\"y\":%.17g}",
        device->steps * STEP_LENGTH, heading, device->last_count, device->steps, (int)timestamp_length, timestamp,
        device->updates, device->x, device->y);
    if (length < 0 || (size_t)length >= sizeof payload) return;
    mosquitto_publish_v5(client, NULL, topic, length, payload, 1, true, NULL);
}

static void on_message(struct mosquitto *mosq, void *object, const struct mosquitto_message *message, const mosquitto_property *properties) {
    (void)mosq; (void)object; (void)properties;
    const char *topic = message->topic;
    size_t topic_length = strlen(topic);
    if (topic_length <= prefix_length + 1 || strncmp(topic, prefix, prefix_length) != 0) return;
    const char *name = topic + prefix_length + 1;
    const char *slash = strchr(name, '/');
    if (!slash) return;
    struct device *device = lookup(name, (size_t)(slash - name));
    if (!device) return;
    const char *json = message->payload;
    size_t length = (size_t)message->payloadlen;
    if (strcmp(slash, "/heading") == 0) {
        const char *value = field(json, length, "heading");
        if (value && *value != 'n') {
            device->heading = strtod(value, NULL);
            device->has_heading = 1;
        }
        return;
    }
    if (strcmp(slash, "/steps") != 0) return;
    const char *count_text = field(json, length, "steps");
    if (!count_text) return;
    long count = strtol(count_text, NULL, 10);
    long added = count >= device->last_count ? count - device->last_count : count;  // lower: a new session
    device->last_count = count;
    if (added == 0) return;
    device->steps += added;
    device->pending += added;
    while (device->pending >= STEPS_PER_UPDATE && device->has_heading) {
        double radians = device->heading * M_PI / 180;
        device->x += STEPS_PER_UPDATE * STEP_LENGTH * cos(radians);
        device->y += STEPS_PER_UPDATE * STEP_LENGTH * sin(radians);
        device->pending -= STEPS_PER_UPDATE;
        device->updates += 1;
    }
    const char *timestamp = field(json, length, "timestamp");
    size_t timestamp_length = 0;
    if (timestamp && *timestamp == '"') {
        timestamp++;
        while (timestamp + timestamp_length < json + length && timestamp[timestamp_length] != '"') timestamp_length++;
    } else {
        timestamp = "";
    }
    char name_copy[96];
    size_t name_length = (size_t)(slash - name);
    memcpy(name_copy, name, name_length);
    name_copy[name_length] = 0;
    publish_position(name_copy, device, timestamp, timestamp_length);
}

static void on_connect(struct mosquitto *mosq, void *object, int rc, int flags, const mosquitto_property *properties) {
    (void)object; (void)flags; (void)properties;
    if (rc != 0) {
        fprintf(stderr, "position_relay: the broker refused the connection: %s\n", mosquitto_reason_string(rc));
        return;
    }
    char steps[256], heading[256];
    snprintf(steps, sizeof steps, "%s/+/steps", prefix);
    snprintf(heading, sizeof heading, "%s/+/heading", prefix);
    char *const filters[] = {steps, heading};
    mosquitto_subscribe_multiple(mosq, NULL, 2, filters, 1, 0, NULL);
}

static void on_subscribe(struct mosquitto *mosq, void *object, int mid, int count, const int *granted, const mosquitto_property *properties) {
    (void)object; (void)mid; (void)count; (void)granted; (void)properties;
    char topic[256];
    snprintf(topic, sizeof topic, "%s/services/relay/status", prefix);
    const char *online = "{\"status\":\"online\"}";
    mosquitto_publish_v5(mosq, NULL, topic, (int)strlen(online), online, 1, true, NULL);
}

static void on_signal(int signal) {
    (void)signal;
    stopping = 1;  // only the flag: libmosquitto is not async-signal-safe
}

int main(void) {
    const char *host = getenv("MQTT_HOST") ? getenv("MQTT_HOST") : "127.0.0.1";
    int port = getenv("MQTT_PORT") ? atoi(getenv("MQTT_PORT")) : 1883;
    if (getenv("TOPIC_PREFIX")) snprintf(prefix, sizeof prefix, "%s", getenv("TOPIC_PREFIX"));
    prefix_length = strlen(prefix);
    table = calloc(TABLE_SIZE, sizeof *table);
    if (!table) return 1;
    mosquitto_lib_init();
    const char *id = getenv("MQTT_CLIENT_ID") ? getenv("MQTT_CLIENT_ID") : "position-relay";
    client = mosquitto_new(id, true, NULL);
    if (!client) return 1;
    mosquitto_int_option(client, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_int_option(client, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_max_inflight_messages_set(client, 1000);
    mosquitto_connect_v5_callback_set(client, on_connect);
    mosquitto_subscribe_v5_callback_set(client, on_subscribe);
    mosquitto_message_v5_callback_set(client, on_message);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    int rc = mosquitto_connect_bind_v5(client, host, port, 30, NULL, NULL);
    if (rc != MOSQ_ERR_SUCCESS) {
        fprintf(stderr, "position_relay: could not connect to %s:%d: %s\n", host, port, mosquitto_strerror(rc));
        return 1;
    }
    // The loop wakes at least every 100 ms to see the stop flag; a lost connection is reconnected.
    while (!stopping) {
        rc = mosquitto_loop(client, 100, 1);
        if (rc != MOSQ_ERR_SUCCESS && !stopping) {
            struct timespec pause = {0, 100 * 1000 * 1000};
            nanosleep(&pause, NULL);
            mosquitto_reconnect(client);
        }
    }
    mosquitto_disconnect(client);
    mosquitto_destroy(client);
    mosquitto_lib_cleanup();
    return 0;
}

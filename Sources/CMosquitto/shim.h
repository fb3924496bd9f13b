#ifndef STEPCOMPASS_CMOSQUITTO_SHIM_H
#define STEPCOMPASS_CMOSQUITTO_SHIM_H
// The only C header of the project: libmosquitto 2.x and its MQTT protocol constants.
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#endif
